//! The ports of a hardware AQM core (PIE and DualPI2 have the same), one clock cycle at a time.

/// A core's input ports for one clock cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CoreInputs {
    pub rst: bool,
    /// Ns, never decreasing, by at most 2^38 from one cycle to the next.
    pub now: u64,
    pub in_valid: bool,
    pub in_len: u16,
    pub in_ecn: u8,
    pub in_tag: u16,
    pub out_ready: bool,
    pub reg_addr: u8,
    pub reg_wdata: u32,
    pub reg_we: bool,
    pub reg_re: bool,
}

/// A packet's descriptor as `in_len`, `in_ecn` and `in_tag` bring it: what the pipeline stages and queue
/// entries of both cores carry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Desc {
    /// Bytes.
    pub len: u16,
    /// ECN field, 2 bits.
    pub ecn: u8,
    pub tag: u16,
}

/// A core's output ports during one clock cycle (before its rising edge).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CoreOutputs {
    pub in_ready: bool,
    pub verdict_valid: bool,
    pub verdict_tag: u16,
    pub verdict_code: u8,
    pub verdict_queue: bool,
    pub out_valid: bool,
    pub out_len: u16,
    pub out_ecn: u8,
    pub out_tag: u16,
    /// Ns, 40 bits.
    pub out_sojourn: u64,
    pub out_queue: bool,
    pub out_drop: bool,
    pub reg_rdata: u32,
    pub reg_rvalid: bool,
    pub reg_err: bool,
    pub idle: bool,
    /// Ns, low 40 bits.
    pub next_update: u64,
    /// Ns, low 40 bits; meaningful while `link_busy`.
    pub link_free: u64,
    pub link_busy: bool,
}

/// `v` cut to `width` bits.
fn to_width(v: u64, width: u32) -> u64 {
    if width >= 64 {
        v
    } else {
        v & ((1 << width) - 1)
    }
}

impl CoreInputs {
    /// The descriptor on the input ports (`in_ecn` cut to its 2 bits).
    pub fn desc(&self) -> Desc {
        Desc {
            len: self.in_len,
            ecn: self.in_ecn & 3,
            tag: self.in_tag,
        }
    }

    /// The input ports, in the order of [`CoreInputs::values`], with their widths in bits.
    pub const PORTS: [(&'static str, u32); 11] = [
        ("rst", 1),
        ("now", 64),
        ("in_valid", 1),
        ("in_len", 16),
        ("in_ecn", 2),
        ("in_tag", 16),
        ("out_ready", 1),
        ("reg_addr", 8),
        ("reg_wdata", 32),
        ("reg_we", 1),
        ("reg_re", 1),
    ];

    /// Each port's value in the order of [`CoreInputs::PORTS`], cut to the port's width (as the RTL
    /// sees it).
    pub fn values(&self) -> [u64; 11] {
        let i = self;
        let v = [
            i.rst as u64,
            i.now,
            i.in_valid as u64,
            i.in_len as u64,
            i.in_ecn as u64,
            i.in_tag as u64,
            i.out_ready as u64,
            i.reg_addr as u64,
            i.reg_wdata as u64,
            i.reg_we as u64,
            i.reg_re as u64,
        ];
        std::array::from_fn(|k| to_width(v[k], Self::PORTS[k].1))
    }
}

impl CoreOutputs {
    /// The output ports, in the order of [`CoreOutputs::values`], with their widths in bits.
    pub const PORTS: [(&'static str, u32); 19] = [
        ("in_ready", 1),
        ("verdict_valid", 1),
        ("verdict_tag", 16),
        ("verdict_code", 2),
        ("verdict_queue", 1),
        ("out_valid", 1),
        ("out_len", 16),
        ("out_ecn", 2),
        ("out_tag", 16),
        ("out_sojourn", 40),
        ("out_queue", 1),
        ("out_drop", 1),
        ("reg_rdata", 32),
        ("reg_rvalid", 1),
        ("reg_err", 1),
        ("idle", 1),
        ("next_update", 40),
        ("link_free", 40),
        ("link_busy", 1),
    ];

    /// Each port's value, in the order of [`CoreOutputs::PORTS`].
    pub fn values(&self) -> [u64; 19] {
        let o = self;
        [
            o.in_ready as u64,
            o.verdict_valid as u64,
            o.verdict_tag as u64,
            o.verdict_code as u64,
            o.verdict_queue as u64,
            o.out_valid as u64,
            o.out_len as u64,
            o.out_ecn as u64,
            o.out_tag as u64,
            o.out_sojourn,
            o.out_queue as u64,
            o.out_drop as u64,
            o.reg_rdata as u64,
            o.reg_rvalid as u64,
            o.reg_err as u64,
            o.idle as u64,
            o.next_update,
            o.link_free,
            o.link_busy as u64,
        ]
    }

    /// The outputs from each port's value in the order of [`CoreOutputs::PORTS`] (as a simulator of
    /// the RTL reads them).
    pub fn from_values(v: [u64; 19]) -> CoreOutputs {
        CoreOutputs {
            in_ready: v[0] != 0,
            verdict_valid: v[1] != 0,
            verdict_tag: v[2] as u16,
            verdict_code: v[3] as u8,
            verdict_queue: v[4] != 0,
            out_valid: v[5] != 0,
            out_len: v[6] as u16,
            out_ecn: v[7] as u8,
            out_tag: v[8] as u16,
            out_sojourn: v[9],
            out_queue: v[10] != 0,
            out_drop: v[11] != 0,
            reg_rdata: v[12] as u32,
            reg_rvalid: v[13] != 0,
            reg_err: v[14] != 0,
            idle: v[15] != 0,
            next_update: v[16],
            link_free: v[17],
            link_busy: v[18] != 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_values_read_back() {
        let o = CoreOutputs {
            in_ready: true,
            verdict_tag: 0xBEEF,
            verdict_code: 2,
            out_len: 1514,
            out_ecn: 3,
            out_sojourn: (1 << 40) - 1,
            reg_rdata: 0xDEAD_BEEF,
            next_update: 12345,
            link_free: 777,
            link_busy: true,
            ..CoreOutputs::default()
        };
        assert_eq!(CoreOutputs::from_values(o.values()), o);
    }

    #[test]
    fn input_values_are_cut_to_the_port_widths() {
        let i = CoreInputs {
            in_ecn: 7,
            now: u64::MAX,
            ..CoreInputs::default()
        };
        let v = i.values();
        assert_eq!(v[4], 3);
        assert_eq!(v[1], u64::MAX);
    }
}
