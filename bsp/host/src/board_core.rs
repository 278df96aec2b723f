//! Which AQM core a line card carries: the golden description of the core ([`CoreKind`]) whose ID
//! register HELLO reports. The kind decides the register map, the tc words ([`crate::tc`]) and the
//! golden cycle model a stream is checked against.

use aqm_golden::hw::kind::{by_id, by_name, names, CORES};
use aqm_golden::hw::CoreKind;

/// A line card's core.
pub type Core = &'static dyn CoreKind;

/// The core whose ID register reads `id`.
pub fn from_id(id: u32) -> Result<Core, String> {
    by_id(id).ok_or_else(|| {
        let known: Vec<String> = CORES
            .iter()
            .map(|k| format!("{} (0x{:08X})", k.title(), k.id()))
            .collect();
        format!(
            "the board reports core ID 0x{id:08X} ({:?}): none of {}",
            String::from_utf8_lossy(&id.to_be_bytes()),
            known.join(", ")
        )
    })
}

/// The core a board reports (`id`, its HELLO), checked against the core the user asked for, if any.
pub fn identify(id: u32, expected: Option<Core>) -> Result<Core, String> {
    let core = from_id(id)?;
    match expected {
        Some(e) if e != core => Err(format!(
            "--core {}: the board carries the {} core (ID 0x{id:08X}), not {}",
            e.name(),
            core.title(),
            e.title()
        )),
        _ => Ok(core),
    }
}

/// A core by its name (`pie`, `dualpi2`, case-insensitive), as `--core` and the simulator name them.
pub fn parse(s: &str) -> Result<Core, String> {
    by_name(&s.to_ascii_lowercase()).ok_or_else(|| format!("{s:?}: expected one of {}", names()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqm_golden::dualpi2::kind::DUALPI2_CORE;
    use aqm_golden::dualpi2::regs::DUALPI2_ID;
    use aqm_golden::pie::kind::PIE_CORE;
    use aqm_golden::pie::regs::PIE_ID;

    #[test]
    fn the_id_register_names_the_core_and_a_wrong_one_is_refused() {
        let (pie, dualpi2): (Core, Core) = (&PIE_CORE, &DUALPI2_CORE);
        assert_eq!(identify(PIE_ID, None), Ok(pie));
        assert_eq!(identify(DUALPI2_ID, Some(dualpi2)), Ok(dualpi2));
        let e = identify(PIE_ID, Some(dualpi2)).unwrap_err();
        assert!(
            e.contains("--core dualpi2") && e.contains("PIE core"),
            "{e}"
        );
        let e = from_id(0x1234_5678).unwrap_err();
        assert!(
            e.contains("0x12345678") && e.contains("DualPI2 (0x44504932)"),
            "{e}"
        );
        assert_eq!(parse("DualPI2"), Ok(dualpi2));
        assert!(parse("codel").unwrap_err().contains("pie, dualpi2"));
    }
}
