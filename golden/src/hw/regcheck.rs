//! The register map check: every entry of a core's map ([`CoreKind::regs`]) against a model of the core
//! (the golden cycle model, the rust-hdl simulation or the Verilated RTL), through its register bus.
//!
//! For each register, after a reset:
//! - it reads its reset value (write-only registers are not read);
//! - a parameter with a range takes `lo` and `hi` and reads them back, and refuses `lo - 1` and `hi + 1`
//!   (where they exist);
//! - a _LO/_HI pair takes the largest value of its width and reads it back, and refuses one more;
//! - a read-only register refuses a write;
//! - every address the map does not list refuses a write and a read.
//!
//! After every refused write, every readable register still reads what it read before, so a refused
//! write that changed something is found too. A failure names the model, the register and the value.

use super::clocked::ClockedCore;
use super::driver::{DriverError, EventDriver};
use super::kind::CoreKind;
use crate::pie::regs::{Access, RegDef, STATUS_WRITE_ERROR};
use std::fmt;

/// A way the core disagreed with its map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegMapError {
    /// The model checked (`"golden"`, `"rust-hdl"`, `"verilator"`).
    pub model: &'static str,
    /// The core's name.
    pub core: &'static str,
    /// The register (or `"unmapped 0x.."`).
    pub register: String,
    pub what: String,
}

impl fmt::Display for RegMapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} register {}: {}",
            self.model, self.core, self.register, self.what
        )
    }
}

impl std::error::Error for RegMapError {}

/// How much a passing check covered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegMapReport {
    /// Writes the core accepted as the map says.
    pub accepted: usize,
    /// Writes the core refused as the map says (each followed by a check that nothing changed).
    pub refused: usize,
    /// Reads compared with the map's reset values or with the value written.
    pub reads: usize,
}

struct Check<'a, C: ClockedCore> {
    kind: &'a dyn CoreKind,
    d: EventDriver<C>,
    report: RegMapReport,
}

impl<C: ClockedCore> Check<'_, C> {
    fn fail(&mut self, register: String, what: String) -> RegMapError {
        RegMapError {
            model: self.d.core().model_name(),
            core: self.kind.name(),
            register,
            what,
        }
    }

    fn read(&mut self, r: &RegDef) -> Result<u32, RegMapError> {
        self.report.reads += 1;
        self.d
            .read_reg(r.addr)
            .map_err(|e| self.fail(r.name.to_string(), format!("read refused: {e}")))
    }

    /// Every readable register's value, in address order (a _LO read latches its _HI half).
    fn snapshot(&mut self) -> Result<Vec<(&'static str, u32)>, RegMapError> {
        let regs = self.kind.regs();
        let mut v = Vec::with_capacity(regs.len());
        for r in regs.iter().filter(|r| r.access != Access::Wo) {
            v.push((r.name, self.read(r)?));
        }
        Ok(v)
    }

    fn accept(&mut self, r: &RegDef, value: u32, why: &str) -> Result<(), RegMapError> {
        match self.d.write_reg(r.addr, value) {
            Ok(()) => {
                self.report.accepted += 1;
                Ok(())
            }
            Err(e) => Err(self.fail(
                r.name.to_string(),
                format!("write of {value} ({why}) refused, expected it taken: {e}"),
            )),
        }
    }

    /// A write the map says the core refuses: refused, the STATUS error flag set (then cleared), and
    /// nothing else changed.
    fn refuse(&mut self, addr: u8, name: &str, value: u32, why: &str) -> Result<(), RegMapError> {
        let before = self.snapshot()?;
        match self.d.write_reg(addr, value) {
            Err(DriverError::Rejected { .. }) => self.report.refused += 1,
            Ok(()) => {
                return Err(self.fail(
                    name.to_string(),
                    format!("write of {value} ({why}) taken, expected it refused"),
                ))
            }
            Err(e) => return Err(self.fail(name.to_string(), format!("write of {value}: {e}"))),
        }
        let status = self.status_def()?;
        let flag = self.read(status)?;
        if flag & STATUS_WRITE_ERROR == 0 {
            return Err(self.fail(
                name.to_string(),
                format!("refused write of {value} ({why}) left STATUS.write_error clear"),
            ));
        }
        self.clear_error(name)?;
        let after = self.snapshot()?;
        for ((reg, a), (_, b)) in before.iter().zip(&after) {
            if a != b {
                return Err(self.fail(
                    name.to_string(),
                    format!("refused write of {value} ({why}) changed {reg} from {a:#x} to {b:#x}"),
                ));
            }
        }
        Ok(())
    }

    fn status_def(&mut self) -> Result<&'static RegDef, RegMapError> {
        let kind = self.kind;
        kind.register_by_name("STATUS").ok_or_else(|| {
            self.fail(
                "STATUS".to_string(),
                "the map has no STATUS register, so a refused write cannot be seen".to_string(),
            )
        })
    }

    fn clear_error(&mut self, after: &str) -> Result<(), RegMapError> {
        let status = self.status_def()?;
        self.d
            .write_reg(status.addr, STATUS_WRITE_ERROR)
            .map_err(|e| self.fail(after.to_string(), format!("clearing STATUS: {e}")))
    }

    fn expect_read(&mut self, r: &RegDef, want: u32, after: &str) -> Result<(), RegMapError> {
        let got = self.read(r)?;
        if got != want {
            return Err(self.fail(
                r.name.to_string(),
                format!("reads {got:#x} after {after}, expected {want:#x}"),
            ));
        }
        Ok(())
    }

    /// Every register reads its reset value.
    fn resets(&mut self) -> Result<(), RegMapError> {
        for r in self.kind.regs().iter().filter(|r| r.access != Access::Wo) {
            self.expect_read(r, r.reset, "reset")?;
        }
        Ok(())
    }

    /// A parameter: both ends taken and read back, one past each end refused.
    fn range(&mut self, r: &RegDef, lo: u32, hi: u32) -> Result<(), RegMapError> {
        if let Some(below) = lo.checked_sub(1) {
            self.refuse(r.addr, r.name, below, "lo - 1")?;
        }
        if let Some(above) = hi.checked_add(1) {
            self.refuse(r.addr, r.name, above, "hi + 1")?;
        }
        self.accept(r, lo, "lo")?;
        self.expect_read(r, lo, "writing lo")?;
        self.accept(r, hi, "hi")?;
        self.expect_read(r, hi, "writing hi")?;
        // Back to the reset value, so the registers checked later see the core as reset.
        self.accept(r, r.reset, "its reset value")
    }

    /// A read-write _LO/_HI pair of `width` bits: the largest value taken and read back, one more refused.
    fn pair(&mut self, lo: &RegDef, hi: &RegDef) -> Result<(), RegMapError> {
        let width = lo.width.min(64);
        let max: u64 = if width == 64 {
            u64::MAX
        } else {
            (1 << width) - 1
        };
        self.accept(lo, max as u32, "low half of the largest value")?;
        self.accept(hi, (max >> 32) as u32, "high half of the largest value")?;
        self.expect_read(lo, max as u32, "writing the largest value")?;
        self.expect_read(hi, (max >> 32) as u32, "writing the largest value")?;
        if width < 64 {
            let over = max + 1;
            self.accept(lo, over as u32, "low half of the largest value + 1")?;
            self.refuse(hi.addr, hi.name, (over >> 32) as u32, "largest value + 1")?;
        }
        self.accept(lo, lo.reset, "its reset value")?;
        self.accept(hi, hi.reset, "its reset value")
    }

    fn run(&mut self) -> Result<(), RegMapError> {
        self.resets()?;
        let regs = self.kind.regs();
        for (i, r) in regs.iter().enumerate() {
            match (r.access, r.range) {
                (Access::Rw, Some((lo, hi))) => self.range(r, lo, hi)?,
                (Access::Rw, None) if r.name.ends_with("_LO") => {
                    let hi_name = format!("{}_HI", r.name.trim_end_matches("_LO"));
                    let hi = regs
                        .get(i + 1)
                        .filter(|h| h.name == hi_name)
                        .ok_or_else(|| {
                            self.fail(r.name.to_string(), format!("no {hi_name} after it"))
                        })?;
                    self.pair(r, hi)?
                }
                (Access::Ro, _) => self.refuse(r.addr, r.name, r.reset ^ 1, "read-only")?,
                _ => {}
            }
        }
        for a in 0..=u8::MAX {
            if self.kind.register(a).is_some() {
                continue;
            }
            let name = format!("unmapped {a:#04x}");
            self.refuse(a, &name, 0, "unmapped")?;
            self.report.reads += 1;
            match self.d.read_reg(a) {
                Err(DriverError::ReadRejected { .. }) => self.clear_error(&name)?,
                Ok(v) => {
                    return Err(self.fail(name, format!("read returned {v:#x}, expected a refusal")))
                }
                Err(e) => return Err(self.fail(name, format!("read: {e}"))),
            }
        }
        Ok(())
    }
}

/// Checks every entry of `kind`'s register map against `core` (a model of that core, out of power-on).
pub fn check_register_map<C: ClockedCore>(
    kind: &dyn CoreKind,
    core: C,
) -> Result<RegMapReport, RegMapError> {
    let mut c = Check {
        kind,
        d: EventDriver::new(core),
        report: RegMapReport::default(),
    };
    c.run()?;
    Ok(c.report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::kind::CORES;

    #[test]
    fn every_map_has_unique_sorted_addresses() {
        for kind in CORES {
            for w in kind.regs().windows(2) {
                assert!(
                    w[0].addr < w[1].addr,
                    "{}: {} / {}",
                    kind.name(),
                    w[0].name,
                    w[1].name
                );
            }
        }
    }

    #[test]
    fn the_golden_models_follow_their_maps() {
        for kind in CORES {
            let report = check_register_map(*kind, kind.model()).unwrap_or_else(|e| panic!("{e}"));
            assert!(report.refused > 200, "{}: {report:?}", kind.name());
            assert!(report.accepted > 20, "{}: {report:?}", kind.name());
        }
    }
}
