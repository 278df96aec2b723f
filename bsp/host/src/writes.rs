//! Register writes checked before they reach the board, and a board's refusal explained. The board
//! answers a refused register access with one code (`RegisterRejected`); the core's register table
//! ([`aqm_golden::hw::regs::RegDef`]: access, range) and its golden model say which register, which value
//! and why.

use crate::board_core::Core;
use crate::client::Client;
use crate::transport::Transport;
use aqm_golden::hw::driver::EventDriver;
use aqm_golden::hw::regs::Access;

/// A register by name and address (`LIMIT (0x12)`), or the bare address off the map.
pub fn reg_name(core: Core, addr: u8) -> String {
    match core.register(addr) {
        Some(d) => format!("{} (0x{addr:02X})", d.name),
        None => format!("0x{addr:02X}"),
    }
}

/// Why the register table refuses a write of `value` at `addr` (unmapped, read-only, out of range), or
/// `None` if the table takes it.
fn table_refusal(core: Core, addr: u8, value: u32) -> Option<String> {
    let Some(d) = core.register(addr) else {
        return Some(format!(
            "0x{addr:02X} is not a register of the {} core (unmapped)",
            core.title()
        ));
    };
    if d.access == Access::Ro {
        return Some(format!("{} (0x{addr:02X}) is read-only", d.name));
    }
    match d.range {
        Some((lo, hi)) if !(lo..=hi).contains(&value) => Some(format!(
            "{} (0x{addr:02X}) = {value} is out of range: expected {lo}..={hi} {}",
            d.name, d.unit
        )),
        _ => None,
    }
}

/// Why the board refused a write of `value` (or, with `None`, a read) at `addr`: the register table's
/// reason, else what the golden model of the core says, else the core was busy.
pub fn why_refused(core: Core, addr: u8, value: Option<u32>) -> String {
    let Some(value) = value else {
        return match core.register(addr) {
            None => format!(
                "read of 0x{addr:02X}: not a register of the {} core (unmapped)",
                core.title()
            ),
            Some(d) => format!(
                "read of {} (0x{addr:02X}): refused by the core although the register is mapped ({})",
                d.name,
                d.access.as_str()
            ),
        };
    };
    if let Some(why) = table_refusal(core, addr, value) {
        return format!("write of {value} to {}: {why}", reg_name(core, addr));
    }
    let mut golden = EventDriver::new(core.model());
    let d = core.register(addr).expect("table_refusal checks the map");
    if golden.write_reg(addr, value).is_err() {
        return format!(
            "write of {value} to {}: the {} core refuses this value ({})",
            reg_name(core, addr),
            core.title(),
            d.doc
        );
    }
    format!(
        "write of {value} to {}: the value is in the register's range, so the core was busy \
         (still taking an earlier write) or holds other values this one conflicts with",
        reg_name(core, addr)
    )
}

/// Checks every write before any is sent: each register is mapped and writable and each value is within
/// its range, and the golden model of the core, freshly reset, takes the writes in order (so a value the
/// table cannot express, like a 64-bit seed of 0, is refused too). The error names the register, the
/// value and why.
pub fn check_writes(core: Core, writes: &[(u8, u32)]) -> Result<(), String> {
    for &(a, v) in writes {
        if let Some(why) = table_refusal(core, a, v) {
            return Err(why);
        }
    }
    let mut golden = EventDriver::new(core.model());
    for &(a, v) in writes {
        if golden.write_reg(a, v).is_err() {
            let d = core.register(a).expect("checked against the map above");
            return Err(format!(
                "{} = {v}: the {} core refuses this value ({})",
                reg_name(core, a),
                core.title(),
                d.doc
            ));
        }
    }
    Ok(())
}

/// Writes all of `writes` or none: the values before are read first, and if the board refuses one,
/// those already written are put back (a write-only register cannot be, and the error says so).
pub fn apply_all<T: Transport>(
    c: &mut Client<T>,
    core: Core,
    writes: &[(u8, u32)],
) -> Result<(), String> {
    let mut before = vec![];
    for &(a, _) in writes {
        let readable = core.register(a).is_some_and(|d| d.access != Access::Wo);
        before.push(if readable {
            Some(c.read(a).map_err(|e| e.to_string())?)
        } else {
            None
        });
    }
    for (k, &(a, v)) in writes.iter().enumerate() {
        let Err(err) = c.write(a, v) else { continue };
        let mut lost = vec![];
        for (&(ra, _), old) in writes[..k].iter().zip(&before) {
            match old {
                Some(o) if c.write(ra, *o).is_ok() => {}
                _ => lost.push(reg_name(core, ra)),
            }
        }
        let state = if lost.is_empty() {
            format!("nothing changed ({k} registers written before it are back to their values)")
        } else {
            format!("could not put back {}", lost.join(", "))
        };
        return Err(format!("{err}; {state}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqm_golden::pie::kind::PIE_CORE;
    use aqm_golden::pie::regs::addr;

    #[test]
    fn refusals_name_the_register_the_value_and_why() {
        let c: Core = &PIE_CORE;
        let w = why_refused(c, 0x7F, Some(1));
        assert!(w.contains("0x7F") && w.contains("unmapped"), "{w}");
        let w = why_refused(c, addr::PKTS_IN, Some(1));
        assert!(w.contains("PKTS_IN") && w.contains("read-only"), "{w}");
        let w = why_refused(c, addr::ALPHA, Some(33));
        assert!(
            w.contains("ALPHA") && w.contains("33") && w.contains("0..=32"),
            "{w}"
        );
        assert!(why_refused(c, addr::ALPHA, Some(3)).contains("busy"));
        assert!(why_refused(c, 0x7F, None).contains("read of 0x7F"));
        let e = check_writes(
            c,
            &[
                (addr::TARGET_US, 20_000),
                (addr::SEED_LO, 0),
                (addr::SEED_HI, 0),
            ],
        )
        .unwrap_err();
        assert!(e.contains("SEED_HI") && e.contains("zero rejected"), "{e}");
        assert!(check_writes(c, &[(addr::TARGET_US, 20_000), (addr::SEED_LO, 1)]).is_ok());
    }
}
