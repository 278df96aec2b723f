//! DualPI2's parameters in tc's units, with the ranges the hardware register file accepts.

use super::consts::{gain_internal, us_to_ns, HW_QUEUE_CAPACITY};
use crate::params::check;
pub use crate::params::ParamError;

/// A parameter set, as `tc qdisc ... dualpi2` takes it. Every field is in the register file's unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DualPi2Params {
    /// Target queueing delay of the PI2 controller, us.
    pub target_us: u32,
    /// Controller update interval, us.
    pub tupdate_us: u32,
    /// Integral gain, Hz x 256 (tc's `alpha`).
    pub alpha: u32,
    /// Proportional gain, Hz x 256 (tc's `beta`).
    pub beta: u32,
    /// Coupling factor k: p_CL = k * p' (tc's `coupling_factor`).
    pub k: u32,
    /// The L queue's step threshold (time mode), us: an L packet that waited longer is marked.
    pub step_us: u32,
    /// The step marker acts only on packets that found at least this many packets in the L queue.
    pub min_qlen_step: u32,
    /// A packet goes to the L queue when (ECN field & ecn_mask) != 0: 1 = ECT(1) and CE (L4S), 2 = ECT(0)
    /// and CE, 3 = any ECT.
    pub ecn_mask: u32,
    /// In overload (k p' > 100 %), drop L packets with p'^2 instead of only marking them; when off, p' is
    /// capped at MAX / k so that overload never starts.
    pub drop_overload: bool,
    /// Packets in both queues together; the byte limit is limit * 2 * MTU.
    pub limit: u32,
    /// MTU of the 2*MTU gate, the byte limit and the initial WRR credit, bytes.
    pub mtu: u32,
    /// Share of the link the C queue is guaranteed under saturation, %: the WRR weight wc (wl = 100 - wc).
    pub c_protection: u32,
    /// Packets each of the two queues can hold (the hardware's descriptor memory); u32::MAX = unbounded.
    pub queue_capacity: u32,
}

/// Linux's defaults (spec/dualpi2.md) with unbounded queues: the software model.
pub const DEFAULT_PARAMS: DualPi2Params = DualPi2Params {
    target_us: 15_000,
    tupdate_us: 16_000,
    alpha: 41,
    beta: 819,
    k: 2,
    step_us: 1_000,
    min_qlen_step: 0,
    ecn_mask: 1,
    drop_overload: true,
    limit: 10_000,
    mtu: 1514,
    c_protection: 10,
    queue_capacity: u32::MAX,
};

/// The hardware core: the defaults, with the limit and the per-queue capacity of its descriptor memory.
/// These are the register file's reset values.
pub const HARDWARE_PARAMS: DualPi2Params = DualPi2Params {
    limit: range::HW_LIMIT.1,
    queue_capacity: HW_QUEUE_CAPACITY,
    ..DEFAULT_PARAMS
};

impl Default for DualPi2Params {
    fn default() -> Self {
        DEFAULT_PARAMS
    }
}

/// Accepted range of each numeric parameter (inclusive).
pub mod range {
    pub const TARGET_US: (u32, u32) = (1, 1_000_000);
    pub const TUPDATE_US: (u32, u32) = (100, 1_000_000);
    /// Linux accepts 1..2^31-1; 20 bits (4096 Hz) keep the internal gains within 21 bits, so that both
    /// products of the update fit a signed 64-bit sum for any 40-bit delay.
    pub const GAIN: (u32, u32) = (1, (1 << 20) - 1);
    /// A u8 in Linux; at least 1.
    pub const K: (u32, u32) = (1, 255);
    pub const STEP_US: (u32, u32) = (0, 1_000_000);
    pub const MIN_QLEN_STEP: (u32, u32) = (0, u32::MAX);
    pub const ECN_MASK: (u32, u32) = (1, 3);
    /// The software model's limit.
    pub const LIMIT: (u32, u32) = (1, 10_000_000);
    /// The hardware's limit: its two queues hold 2 x 512 descriptors.
    pub const HW_LIMIT: (u32, u32) = (1, 1024);
    pub const MTU: (u32, u32) = (64, 2047);
    pub const C_PROTECTION: (u32, u32) = (0, 100);
    pub const QUEUE_CAPACITY: (u32, u32) = (1, u32::MAX);
}

impl DualPi2Params {
    /// The hardware core's parameters ([`HARDWARE_PARAMS`]).
    pub fn hardware() -> DualPi2Params {
        HARDWARE_PARAMS
    }

    /// All fields within their ranges.
    pub fn validate(&self) -> Result<(), ParamError> {
        check("target_us", self.target_us, range::TARGET_US)?;
        check("tupdate_us", self.tupdate_us, range::TUPDATE_US)?;
        check("alpha", self.alpha, range::GAIN)?;
        check("beta", self.beta, range::GAIN)?;
        check("k", self.k, range::K)?;
        check("step_us", self.step_us, range::STEP_US)?;
        check("min_qlen_step", self.min_qlen_step, range::MIN_QLEN_STEP)?;
        check("ecn_mask", self.ecn_mask, range::ECN_MASK)?;
        check("limit", self.limit, range::LIMIT)?;
        check("mtu", self.mtu, range::MTU)?;
        check("c_protection", self.c_protection, range::C_PROTECTION)?;
        check("queue_capacity", self.queue_capacity, range::QUEUE_CAPACITY)
    }

    /// Valid, and something the hardware core can run: the limit fits its descriptor memory and each
    /// queue holds exactly what its FIFO does.
    pub fn validate_hardware(&self) -> Result<(), ParamError> {
        self.validate()?;
        check("limit", self.limit, range::HW_LIMIT)?;
        check(
            "queue_capacity",
            self.queue_capacity,
            (HW_QUEUE_CAPACITY, HW_QUEUE_CAPACITY),
        )
    }

    pub fn target_ns(&self) -> u64 {
        us_to_ns(self.target_us)
    }

    pub fn tupdate_ns(&self) -> u64 {
        us_to_ns(self.tupdate_us)
    }

    pub fn step_ns(&self) -> u64 {
        us_to_ns(self.step_us)
    }

    /// alpha in internal units (probability per ns of delay, x 64).
    pub fn alpha_i(&self) -> u64 {
        gain_internal(self.alpha)
    }

    /// beta in internal units.
    pub fn beta_i(&self) -> u64 {
        gain_internal(self.beta)
    }

    /// The byte limit of both queues together: limit * 2 * MTU, saturated at 2^32 - 1 as Linux keeps it
    /// in a u32 (the saturation only matters for limits above ~1.4 million packets).
    pub fn byte_limit(&self) -> u64 {
        (self.limit as u64 * 2 * self.mtu as u64).min(u32::MAX as u64)
    }
}

/// The PI2 parameters tc-dualpi2(8) derives from the RTTs it is told of (`max_rtt`, `typical_rtt`),
/// in register units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RttConfig {
    pub target_us: u32,
    pub tupdate_us: u32,
    /// Hz x 256.
    pub alpha: u32,
    /// Hz x 256.
    pub beta: u32,
}

/// tc-dualpi2's auto-configuration (RFC 9332, appendix A.1), from the maximum and the typical RTT in
/// ns (whole microseconds; at least one of them given): the one missing is the other x 6 (or / 6);
/// target = typical RTT; tupdate = the smaller of the typical RTT and a third of the maximum RTT;
/// alpha = 0.1 x tupdate / max_rtt^2 and beta = 0.3 / max_rtt, in Hz, taken x 256 and rounded as the
/// `alpha` and `beta` words are.
pub fn rtt_auto_config(
    max_rtt_ns: Option<u64>,
    typical_rtt_ns: Option<u64>,
) -> Result<RttConfig, String> {
    let us = |name: &str, ns: Option<u64>| -> Result<Option<u64>, String> {
        match ns {
            None | Some(0) => Ok(None),
            Some(ns) if ns % 1000 != 0 => {
                Err(format!("{name} {ns}ns: the core takes whole microseconds"))
            }
            Some(ns) => Ok(Some(ns / 1000)),
        }
    };
    let (max_us, typ_us) = match (
        us("max_rtt", max_rtt_ns)?,
        us("typical_rtt", typical_rtt_ns)?,
    ) {
        (None, None) => return Err("max_rtt or typical_rtt: give at least one, above 0".into()),
        (Some(m), None) => (m, (m / 6).max(1)),
        (None, Some(t)) => (t * 6, t),
        (Some(m), Some(t)) if t > m => {
            return Err(format!(
                "typical_rtt {t}us is above max_rtt {m}us: it must be at most max_rtt"
            ))
        }
        (Some(m), Some(t)) => (m, t),
    };
    let tupdate_us = typ_us.min(max_us / 3).max(1);
    let max_s = max_us as f64 * 1e-6;
    let gain = |name: &str, hz: f64| -> Result<u32, String> {
        let v = (hz * 256.0).round();
        if v < range::GAIN.0 as f64 || v > range::GAIN.1 as f64 {
            Err(format!(
                "max_rtt {max_us}us gives {name} {hz:.6} Hz = {v} / 256: the core takes {}..={} / 256",
                range::GAIN.0,
                range::GAIN.1
            ))
        } else {
            Ok(v as u32)
        }
    };
    let fit = |name: &str, v: u64| u32::try_from(v).map_err(|_| format!("{name} {v}us: too long"));
    Ok(RttConfig {
        target_us: fit("typical_rtt", typ_us)?,
        tupdate_us: fit("tupdate", tupdate_us)?,
        alpha: gain("alpha", 0.1 * tupdate_us as f64 * 1e-6 / (max_s * max_s))?,
        beta: gain("beta", 0.3 / max_s)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rtt_auto_config_gives_the_gains_computed_by_hand() {
        let ms = |x: u64| Some(x * 1_000_000);
        // tc's defaults: tupdate = min(15 ms, 100/3 ms); alpha = 0.1 * 0.015 / 0.01 = 0.15 Hz = 38.4 / 256;
        // beta = 0.3 / 0.1 = 3 Hz = 768 / 256.
        let c = |target_us, tupdate_us, alpha, beta| RttConfig {
            target_us,
            tupdate_us,
            alpha,
            beta,
        };
        assert_eq!(
            rtt_auto_config(ms(100), ms(15)),
            Ok(c(15_000, 15_000, 38, 768))
        );
        // typical = 30 / 6 = 5 ms; alpha = 0.1 * 0.005 / 0.0009 = 0.5556 Hz = 142.2; beta = 10 Hz.
        assert_eq!(
            rtt_auto_config(ms(30), None),
            Ok(c(5_000, 5_000, 142, 2560))
        );
        // max = 20 * 6 = 120 ms; alpha = 0.1 * 0.02 / 0.0144 = 0.13889 Hz = 35.56; beta = 2.5 Hz.
        assert_eq!(
            rtt_auto_config(None, ms(20)),
            Ok(c(20_000, 20_000, 36, 640))
        );
        // tupdate = max / 3 = 10 ms < 15 ms; alpha = 0.1 * 0.01 / 0.0009 = 1.111 Hz = 284.4.
        assert_eq!(
            rtt_auto_config(ms(30), ms(15)),
            Ok(c(15_000, 10_000, 284, 2560))
        );
    }

    #[test]
    fn rtt_auto_config_refuses_what_the_core_cannot_take() {
        let ms = |x: u64| Some(x * 1_000_000);
        assert!(rtt_auto_config(ms(10), ms(20))
            .unwrap_err()
            .contains("at most max_rtt"));
        assert!(rtt_auto_config(None, None).is_err());
        // 100 s: alpha rounds to 0.
        assert!(rtt_auto_config(ms(100_000), None)
            .unwrap_err()
            .contains("alpha"));
        assert!(rtt_auto_config(Some(1500), None)
            .unwrap_err()
            .contains("whole microseconds"));
    }

    #[test]
    fn defaults_and_hardware_preset_are_valid() {
        DEFAULT_PARAMS.validate().unwrap();
        HARDWARE_PARAMS.validate_hardware().unwrap();
        assert_eq!(DualPi2Params::hardware().limit, 1024);
        assert_eq!(DualPi2Params::hardware().queue_capacity, 512);
        assert_eq!(DualPi2Params::default().limit, 10_000);
        assert!(DEFAULT_PARAMS.validate_hardware().is_err());
    }

    #[test]
    fn default_units_match_the_spec() {
        let p = DualPi2Params::default();
        assert_eq!(p.alpha_i(), 44);
        assert_eq!(p.beta_i(), 879);
        assert_eq!(p.target_ns(), 15_000_000);
        assert_eq!(p.tupdate_ns(), 16_000_000);
        assert_eq!(p.step_ns(), 1_000_000);
        assert_eq!(p.byte_limit(), 10_000 * 2 * 1514);
    }

    #[test]
    fn byte_limit_saturates_like_linux() {
        let p = DualPi2Params {
            limit: 10_000_000,
            ..DEFAULT_PARAMS
        };
        assert_eq!(p.byte_limit(), u32::MAX as u64);
    }

    #[test]
    fn out_of_range_values_name_the_parameter() {
        let bad = [
            DualPi2Params {
                k: 0,
                ..DEFAULT_PARAMS
            },
            DualPi2Params {
                ecn_mask: 0,
                ..DEFAULT_PARAMS
            },
            DualPi2Params {
                ecn_mask: 4,
                ..DEFAULT_PARAMS
            },
            DualPi2Params {
                c_protection: 101,
                ..DEFAULT_PARAMS
            },
            DualPi2Params {
                alpha: 0,
                ..DEFAULT_PARAMS
            },
            DualPi2Params {
                beta: 1 << 20,
                ..DEFAULT_PARAMS
            },
            DualPi2Params {
                mtu: 63,
                ..DEFAULT_PARAMS
            },
            DualPi2Params {
                queue_capacity: 0,
                ..DEFAULT_PARAMS
            },
        ];
        let names = [
            "k",
            "ecn_mask",
            "ecn_mask",
            "c_protection",
            "alpha",
            "beta",
            "mtu",
            "queue_capacity",
        ];
        for (p, name) in bad.iter().zip(names) {
            assert_eq!(p.validate().unwrap_err().name, name);
        }
    }
}
