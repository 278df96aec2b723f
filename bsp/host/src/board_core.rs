//! Which AQM core a line card carries, and what follows from it on the host.
//!
//! There are two line cards, one per core (`board_pie` and `board_dualpi2`, the same bridge around
//! each); HELLO reports the core's ID register, and [`BoardCore::from_id`] tells them apart. The core
//! decides the register map, the tc-like words ([`crate::tc`]) and the golden cycle model that a stream
//! is checked against ([`GoldenCore`]).

use aqm_golden::dualpi2::core::DualPi2CoreModel;
use aqm_golden::hw::{CoreInputs, CoreOutputs};
use aqm_golden::pie::core::PieCoreModel;
use aqm_golden::pie::regs::RegDef;
use aqm_golden::{dualpi2, pie};
use std::fmt;

/// The AQM core of a line card.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardCore {
    /// The PIE core (`PieCore<PIE_FULL>`, bytemode multiplier included), one queue of 1024 descriptors.
    Pie,
    /// The DualPI2 core: an L and a C queue of 512 descriptors each; AQM drops and marks at dequeue.
    DualPi2,
}

impl BoardCore {
    pub const ALL: [BoardCore; 2] = [BoardCore::Pie, BoardCore::DualPi2];

    /// The core whose ID register reads `id`.
    pub fn from_id(id: u32) -> Result<BoardCore, String> {
        BoardCore::ALL
            .into_iter()
            .find(|c| c.id() == id)
            .ok_or_else(|| {
                format!(
                    "the board reports core ID 0x{id:08X} ({:?}): neither PIE (0x{:08X}) nor DualPI2 (0x{:08X})",
                    String::from_utf8_lossy(&id.to_be_bytes()),
                    pie::regs::PIE_ID,
                    dualpi2::regs::DUALPI2_ID
                )
            })
    }

    /// The core a board reports (`id`, its HELLO), checked against the core the user asked for, if any.
    pub fn identify(id: u32, expected: Option<BoardCore>) -> Result<BoardCore, String> {
        let core = BoardCore::from_id(id)?;
        match expected {
            Some(e) if e != core => Err(format!(
                "--core {}: the board carries the {core} core (ID 0x{id:08X}), not {e}",
                e.name()
            )),
            _ => Ok(core),
        }
    }

    /// `pie` or `dualpi2`, as `--core` and the simulator name them.
    pub fn parse(s: &str) -> Result<BoardCore, String> {
        BoardCore::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("{s:?}: expected pie or dualpi2"))
    }

    /// The ID register's value.
    pub fn id(self) -> u32 {
        match self {
            BoardCore::Pie => pie::regs::PIE_ID,
            BoardCore::DualPi2 => dualpi2::regs::DUALPI2_ID,
        }
    }

    /// The simulator's name of the AQM (`pie`, `dualpi2`).
    pub fn name(self) -> &'static str {
        match self {
            BoardCore::Pie => "pie",
            BoardCore::DualPi2 => "dualpi2",
        }
    }

    /// The register called `name` (case-insensitive) in the core's map.
    pub fn reg_by_name(self, name: &str) -> Option<&'static RegDef> {
        match self {
            BoardCore::Pie => pie::regs::by_name(name),
            BoardCore::DualPi2 => dualpi2::regs::by_name(name),
        }
    }

    /// The register at `a` in the core's map.
    pub fn reg(self, a: u8) -> Option<&'static RegDef> {
        match self {
            BoardCore::Pie => pie::regs::find(a),
            BoardCore::DualPi2 => dualpi2::regs::find(a),
        }
    }

    /// The golden cycle model of the core, as after power-on.
    pub fn golden(self) -> GoldenCore {
        match self {
            BoardCore::Pie => GoldenCore::Pie(PieCoreModel::new()),
            BoardCore::DualPi2 => GoldenCore::DualPi2(DualPi2CoreModel::new()),
        }
    }
}

impl fmt::Display for BoardCore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BoardCore::Pie => "PIE",
            BoardCore::DualPi2 => "DualPI2",
        })
    }
}

/// The golden cycle model of a board's core: both have the same ports, so one replay drives either.
#[derive(Clone, Debug)]
pub enum GoldenCore {
    Pie(PieCoreModel),
    DualPi2(DualPi2CoreModel),
}

impl GoldenCore {
    /// One clock cycle: the outputs during the cycle, then the state after its rising edge.
    pub fn step(&mut self, i: &CoreInputs) -> CoreOutputs {
        match self {
            GoldenCore::Pie(m) => m.step(i),
            GoldenCore::DualPi2(m) => m.step(i),
        }
    }

    /// Cycles beyond the core's fixed verdict latency (HELLO's) that a descriptor of `len` bytes
    /// accepted now takes to its verdict: a PIE bytemode packet's multiplier holds the pipeline. The
    /// bridge stamps a verdict with its time less the fixed latency, so such a packet's stamp is this
    /// much later than its acceptance.
    pub fn extra_verdict_latency(&self, len: u16) -> u64 {
        match self {
            GoldenCore::Pie(m) => m.verdict_latency(len) - aqm_golden::pie::core::VERDICT_LATENCY,
            GoldenCore::DualPi2(_) => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_register_names_the_core_and_a_wrong_one_is_refused() {
        assert_eq!(
            BoardCore::identify(pie::regs::PIE_ID, None),
            Ok(BoardCore::Pie)
        );
        assert_eq!(
            BoardCore::identify(dualpi2::regs::DUALPI2_ID, Some(BoardCore::DualPi2)),
            Ok(BoardCore::DualPi2)
        );
        let e = BoardCore::identify(pie::regs::PIE_ID, Some(BoardCore::DualPi2)).unwrap_err();
        assert!(
            e.contains("--core dualpi2") && e.contains("PIE core"),
            "{e}"
        );
        let e = BoardCore::from_id(0x1234_5678).unwrap_err();
        assert!(e.contains("0x12345678"), "{e}");
        assert_eq!(BoardCore::parse("DualPI2"), Ok(BoardCore::DualPi2));
        assert!(BoardCore::parse("codel")
            .unwrap_err()
            .contains("pie or dualpi2"));
    }
}
