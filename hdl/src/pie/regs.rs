//! PIE's register file: parameters in tc's units with range checks, and the read mux over the state and
//! counters, behind the shared [`RegFront`] (bus, ID / STATUS / CONTROL / CAPACITY, errors). The map
//! itself (addresses, ranges, reset values) is `aqm_golden::pie::regs::PIE_REGS`; the addresses below are
//! decimal literals because `#[hdl_gen]` matches only on literals (and emits them verbatim into Verilog
//! `case` labels), and the register map check (`aqm_golden::hw::regcheck`, run on this block by
//! hdl/tests/regmap.rs) checks every entry of that table against it; the ranges are the golden constants.
//!
//! A read returns `reg_rdata` with `reg_rvalid` the cycle after `reg_re`. A write is taken into a
//! register and applied in the following cycle (so that the us -> ns conversion is two short adders in
//! two cycles rather than two in a row); writes to prob, the seed and the MTU reach their owners as
//! strobes in that cycle, and a rejected write pulses `reg_err` the cycle after and changes nothing.

use crate::konst::K;
use crate::regfront::{InRange, RegBus, RegFront};
use aqm_golden::hw::link::BYTE_TIME_RANGE;
use aqm_golden::hw::FLAG_RANGE;
use aqm_golden::pie::consts::ns_to_ticks;
use aqm_golden::pie::params::{range, DEFAULT_PARAMS as D};
use aqm_golden::pie::regs::{addr, CAPACITY, PIE_ID};
use rust_hdl::prelude::*;

/// `BM`: 1 if the core has the bytemode multiplier (BYTEMODE accepts 0..=1), else 0 (only 0).
#[derive(LogicBlock, Default)]
pub struct PieRegs<const BM: u64> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub bus: RegBus,
    // Read-only sources.
    pub ctrl_busy: Signal<In, Bit>,
    pub pkts_in: Signal<In, Bits<32>>,
    pub sent_pkts: Signal<In, Bits<32>>,
    pub sent_bytes: Signal<In, Bits<40>>,
    pub dropped: Signal<In, Bits<32>>,
    pub overlimit: Signal<In, Bits<32>>,
    pub marked: Signal<In, Bits<32>>,
    pub backlog_bytes: Signal<In, Bits<32>>,
    pub backlog_pkts: Signal<In, Bits<11>>,
    pub maxq: Signal<In, Bits<11>>,
    pub qdelay: Signal<In, Bits<34>>, // ticks
    pub acc: Signal<In, Bits<60>>,
    pub burst: Signal<In, Bits<32>>, // ticks
    pub prob: Signal<In, Bits<56>>,
    pub prng_state: Signal<In, Bits<64>>,
    // Parameters.
    pub target_ticks: Signal<Out, Bits<24>>,
    pub target_half: Signal<Out, Bits<24>>,
    pub tupdate_ns: Signal<Out, Bits<32>>,
    pub alpha: Signal<Out, Bits<6>>,
    pub beta: Signal<Out, Bits<6>>,
    pub limit: Signal<Out, Bits<11>>,
    pub ecn: Signal<Out, Bit>,
    pub bytemode: Signal<Out, Bit>,
    pub mtu: Signal<Out, Bits<16>>,
    pub max_burst: Signal<Out, Bits<32>>, // ticks
    pub link_bt: Signal<Out, Bits<24>>,   // ns/byte, Q16.8
    // Strobes to the state owners.
    pub prob_we: Signal<Out, Bit>,
    pub prob_wdata: Signal<Out, Bits<56>>,
    pub seed_we: Signal<Out, Bit>,
    pub seed: Signal<Out, Bits<64>>,
    pub mtu_we: Signal<Out, Bit>,
    pub clear_counters: Signal<Out, Bit>,
    /// CONTROL.reset: resets the whole core for one cycle, the cycle after the write.
    pub soft_reset: Signal<Out, Bit>,
    /// What `soft_reset` is in the next cycle.
    pub soft_reset_next: Signal<Out, Bit>,

    front: RegFront<{ PIE_ID as u64 }, { CAPACITY as u64 }, { addr::SEED_HI as u64 }>,
    w_part: DFF<Bits<30>>,
    target_us_r: DFF<Bits<20>>,
    target_ticks_r: DFF<Bits<24>>,
    tupdate_us_r: DFF<Bits<20>>,
    tupdate_ns_r: DFF<Bits<30>>,
    alpha_r: DFF<Bits<6>>,
    beta_r: DFF<Bits<6>>,
    limit_r: DFF<Bits<11>>,
    ecn_r: DFF<Bit>,
    bytemode_r: DFF<Bit>,
    mtu_r: DFF<Bits<11>>,
    burst_us_r: DFF<Bits<20>>,
    burst_ticks_r: DFF<Bits<24>>,
    link_bt_r: DFF<Bits<24>>,
    prob_stage: DFF<Bits<32>>,
    shadow: DFF<Bits<32>>,
    /// The range check of the write being staged, for the register at its address.
    in_range: DFF<Bit>,
    /// The write being staged is to PROB_HI with the top byte zero: the judgement in the next cycle,
    /// and the controller's choice of job, read one flip-flop and the controller's busy.
    prob_hi: DFF<Bit>,
    ok: Signal<Local, Bit>,
    rd: Signal<Local, Bits<32>>,
    mapped: Signal<Local, Bit>,
    wd30: Signal<Local, Bits<30>>,
    us1000: Signal<Local, Bits<30>>,
    wide: Signal<Local, Bits<64>>,
    d_target_us: K<20, { D.target_us as u64 }>,
    d_target_ticks: K<24, { ns_to_ticks(D.target_us as u64 * 1000) }>,
    d_tupdate_us: K<20, { D.tupdate_us as u64 }>,
    d_tupdate_ns: K<30, { D.tupdate_us as u64 * 1000 }>,
    d_alpha: K<6, { D.alpha as u64 }>,
    d_beta: K<6, { D.beta as u64 }>,
    d_limit: K<11, { D.limit as u64 }>,
    d_mtu: K<11, { D.mtu as u64 }>,
    d_burst_us: K<20, { D.max_burst_us as u64 }>,
    d_burst_ticks: K<24, { ns_to_ticks(D.max_burst_us as u64 * 1000) }>,
    // The accepted ranges, from the golden map's constants, checked on the data being staged (so the
    // judgement in the next cycle reads one flip-flop).
    r_target: InRange<{ range::TARGET_US.0 as u64 }, { range::TARGET_US.1 as u64 }>,
    r_tupdate: InRange<{ range::TUPDATE_US.0 as u64 }, { range::TUPDATE_US.1 as u64 }>,
    r_gain: InRange<{ range::GAIN.0 as u64 }, { range::GAIN.1 as u64 }>,
    r_limit: InRange<{ range::LIMIT.0 as u64 }, { range::LIMIT.1 as u64 }>,
    r_flag: InRange<{ FLAG_RANGE.0 as u64 }, { FLAG_RANGE.1 as u64 }>,
    r_bytemode: InRange<0, BM>,
    r_mtu: InRange<{ range::MTU.0 as u64 }, { range::MTU.1 as u64 }>,
    r_burst: InRange<{ range::MAX_BURST_US.0 as u64 }, { range::MAX_BURST_US.1 as u64 }>,
    r_byte_time: InRange<{ BYTE_TIME_RANGE.0 as u64 }, { BYTE_TIME_RANGE.1 as u64 }>,
}

// Each register is as wide as its range's maximum (20 bits of us, 30 of ns, 24 of ticks, 11 of bytes,
// 6 of gain, 11 of packets, 24 of the byte time): a wider range fails to compile here.
const _: () = assert!(
    (range::TARGET_US.1 as u64) < 1 << 20
        && (range::TUPDATE_US.1 as u64) < 1 << 20
        && (range::MAX_BURST_US.1 as u64) < 1 << 20
        && (range::TUPDATE_US.1 as u64) * 1000 < 1 << 30
        && (range::TARGET_US.1 as u64) * 1000 / 64 < 1 << 24
        && (range::MAX_BURST_US.1 as u64) * 1000 / 64 < 1 << 24
        && (range::GAIN.1 as u64) < 1 << 6
        && (range::LIMIT.1 as u64) < 1 << 11
        && (range::MTU.1 as u64) < 1 << 11
        && (BYTE_TIME_RANGE.1 as u64) < 1 << 24
        && FLAG_RANGE.1 == 1
);

impl<const BM: u64> Logic for PieRegs<BM> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            w_part,
            target_us_r,
            target_ticks_r,
            tupdate_us_r,
            tupdate_ns_r,
            alpha_r,
            beta_r,
            limit_r,
            ecn_r,
            bytemode_r,
            mtu_r,
            burst_us_r,
            burst_ticks_r,
            link_bt_r,
            prob_stage,
            shadow,
            in_range,
            prob_hi
        );
        self.front.clock.next = self.clock.val();
        self.front.rst.next = self.rst.val();
        self.front.seed_lo_we.next = false;
        self.seed.next = self.front.seed.val();
        RegBus::link(&mut self.bus, &mut self.front.bus);
        self.front.busy.next = self.ctrl_busy.val();
        self.clear_counters.next = self.front.clear_counters.val();
        self.soft_reset.next = self.front.soft_reset.val();
        self.soft_reset_next.next = self.front.soft_reset_next.val();
        // Take the write; us -> ns without a multiplier: x * 1000 = (x * 1024 - x * 16) - x * 8, the first
        // subtraction now and the second when the write is applied (x <= 10^6: x * 1000 fits in 30 bits,
        // so the low 30 bits of the products are enough).
        self.wd30.next = self.bus.wdata.val().get_bits::<30>(0);
        self.w_part.d.next = (self.wd30.val() << 10) - (self.wd30.val() << 4);
        self.us1000.next = self.w_part.q.val() - (self.front.w_data.val().get_bits::<30>(0) << 3);
        // The range check of the write being taken, judged in the next cycle.
        self.r_target.x.next = self.bus.wdata.val();
        self.r_tupdate.x.next = self.bus.wdata.val();
        self.r_gain.x.next = self.bus.wdata.val();
        self.r_limit.x.next = self.bus.wdata.val();
        self.r_flag.x.next = self.bus.wdata.val();
        self.r_bytemode.x.next = self.bus.wdata.val();
        self.r_mtu.x.next = self.bus.wdata.val();
        self.r_burst.x.next = self.bus.wdata.val();
        self.r_byte_time.x.next = self.bus.wdata.val();
        self.in_range.d.next = false;
        match self.bus.addr.val().index() {
            16 => self.in_range.d.next = self.r_target.ok.val(),
            17 => self.in_range.d.next = self.r_tupdate.ok.val(),
            18 => self.in_range.d.next = self.r_gain.ok.val(),
            19 => self.in_range.d.next = self.r_gain.ok.val(),
            20 => self.in_range.d.next = self.r_limit.ok.val(),
            21 => self.in_range.d.next = self.r_flag.ok.val(),
            22 => self.in_range.d.next = self.r_bytemode.ok.val(),
            23 => self.in_range.d.next = self.r_mtu.ok.val(),
            24 => self.in_range.d.next = self.r_burst.ok.val(),
            25 => self.in_range.d.next = self.r_byte_time.ok.val(),
            _ => {}
        }
        self.prob_hi.d.next = self.bus.we.val()
            & (self.bus.addr.val() == 29)
            & !self.bus.wdata.val().get_bits::<8>(24).any();
        self.wide.next = (bit_cast::<64, 32>(self.front.w_data.val()) << 32)
            | bit_cast::<64, 32>(self.prob_stage.q.val());
        self.prob_wdata.next = self.wide.val().get_bits::<56>(0);
        // PROB_HI: only while the controller is idle (`prob_hi` implies the staged write is to it).
        self.prob_we.next = self.prob_hi.q.val() & !self.ctrl_busy.val();
        self.seed_we.next = self.front.seed_we.val();
        self.mtu_we.next = false;
        self.ok.next = false;
        if self.front.w_we.val() {
            match self.front.w_addr.val().index() {
                16 => {
                    // TARGET_US
                    self.ok.next = self.in_range.q.val();
                    if self.ok.val() {
                        self.target_us_r.d.next = self.front.w_data.val().get_bits::<20>(0);
                        self.target_ticks_r.d.next = bit_cast::<24, 30>(self.us1000.val() >> 6);
                    }
                }
                17 => {
                    // TUPDATE_US
                    self.ok.next = self.in_range.q.val();
                    if self.ok.val() {
                        self.tupdate_us_r.d.next = self.front.w_data.val().get_bits::<20>(0);
                        self.tupdate_ns_r.d.next = self.us1000.val();
                    }
                }
                18 => {
                    // ALPHA
                    self.ok.next = self.in_range.q.val();
                    if self.ok.val() {
                        self.alpha_r.d.next = self.front.w_data.val().get_bits::<6>(0);
                    }
                }
                19 => {
                    // BETA
                    self.ok.next = self.in_range.q.val();
                    if self.ok.val() {
                        self.beta_r.d.next = self.front.w_data.val().get_bits::<6>(0);
                    }
                }
                20 => {
                    // LIMIT
                    self.ok.next = self.in_range.q.val();
                    if self.ok.val() {
                        self.limit_r.d.next = self.front.w_data.val().get_bits::<11>(0);
                    }
                }
                21 => {
                    // ECN
                    self.ok.next = self.in_range.q.val();
                    if self.ok.val() {
                        self.ecn_r.d.next = self.front.w_data.val().get_bit(0);
                    }
                }
                22 => {
                    // BYTEMODE
                    self.ok.next = self.in_range.q.val();
                    if self.ok.val() {
                        self.bytemode_r.d.next = self.front.w_data.val().get_bit(0);
                    }
                }
                23 => {
                    // MTU
                    self.ok.next = self.in_range.q.val();
                    if self.ok.val() {
                        self.mtu_r.d.next = self.front.w_data.val().get_bits::<11>(0);
                        self.mtu_we.next = true;
                    }
                }
                24 => {
                    // MAX_BURST_US
                    self.ok.next = self.in_range.q.val();
                    if self.ok.val() {
                        self.burst_us_r.d.next = self.front.w_data.val().get_bits::<20>(0);
                        self.burst_ticks_r.d.next = bit_cast::<24, 30>(self.us1000.val() >> 6);
                    }
                }
                25 => {
                    // LINK_BYTE_TIME
                    self.ok.next = self.in_range.q.val();
                    if self.ok.val() {
                        self.link_bt_r.d.next = self.front.w_data.val().get_bits::<24>(0);
                    }
                }
                26 => {
                    // SEED_LO
                    self.ok.next = true;
                    self.front.seed_lo_we.next = true;
                }
                27 => {
                    // SEED_HI: zero is a fixed point of the generator.
                    // (The load itself, `seed_we`, is the front's, from flip-flops.)
                    self.ok.next = self.front.seed_hi_ok.val();
                }
                28 => {
                    // PROB_LO
                    self.ok.next = true;
                    self.prob_stage.d.next = self.front.w_data.val();
                }
                29 => {
                    // PROB_HI
                    // At most 100 % = 2^56 - 1: the top byte of the high half is zero.
                    self.ok.next = self.prob_we.val();
                }
                _ => {
                    self.ok.next = false;
                }
            }
        }

        self.rd.next = 0.into();
        self.mapped.next = true;
        // The read mux (the front takes it only in a `re` cycle).
        match self.bus.addr.val().index() {
            16 => self.rd.next = bit_cast::<32, 20>(self.target_us_r.q.val()),
            17 => self.rd.next = bit_cast::<32, 20>(self.tupdate_us_r.q.val()),
            18 => self.rd.next = bit_cast::<32, 6>(self.alpha_r.q.val()),
            19 => self.rd.next = bit_cast::<32, 6>(self.beta_r.q.val()),
            20 => self.rd.next = bit_cast::<32, 11>(self.limit_r.q.val()),
            21 => self.rd.next = bit_cast::<32, 1>(self.ecn_r.q.val().into()),
            22 => self.rd.next = bit_cast::<32, 1>(self.bytemode_r.q.val().into()),
            23 => self.rd.next = bit_cast::<32, 11>(self.mtu_r.q.val()),
            24 => self.rd.next = bit_cast::<32, 20>(self.burst_us_r.q.val()),
            25 => self.rd.next = bit_cast::<32, 24>(self.link_bt_r.q.val()),
            26 => self.rd.next = self.prng_state.val().get_bits::<32>(0),
            27 => self.rd.next = self.shadow.q.val(),
            28 => self.rd.next = self.prob.val().get_bits::<32>(0),
            29 => self.rd.next = self.shadow.q.val(),
            32 => self.rd.next = self.pkts_in.val(),
            33 => self.rd.next = self.sent_pkts.val(),
            34 => self.rd.next = self.sent_bytes.val().get_bits::<32>(0),
            35 => self.rd.next = self.shadow.q.val(),
            36 => self.rd.next = self.dropped.val(),
            37 => self.rd.next = self.overlimit.val(),
            38 => self.rd.next = self.marked.val(),
            39 => self.rd.next = self.backlog_bytes.val(),
            40 => self.rd.next = bit_cast::<32, 11>(self.backlog_pkts.val()),
            41 => self.rd.next = bit_cast::<32, 11>(self.maxq.val()),
            42 => {
                self.rd.next = self.qdelay.val().get_bits::<32>(0);
                if self.qdelay.val().get_bits::<2>(32).any() {
                    self.rd.next = 0xFFFF_FFFF_u64.into();
                }
            }
            43 => self.rd.next = self.acc.val().get_bits::<32>(0),
            44 => self.rd.next = self.shadow.q.val(),
            45 => self.rd.next = self.burst.val(),
            _ => {
                self.mapped.next = false;
            }
        }

        // The high halves of the 64-bit reads, latched by a read of the low half.
        if self.bus.re.val() {
            match self.bus.addr.val().index() {
                26 => self.shadow.d.next = self.prng_state.val().get_bits::<32>(32),
                28 => self.shadow.d.next = bit_cast::<32, 24>(self.prob.val().get_bits::<24>(32)),
                34 => {
                    self.shadow.d.next = bit_cast::<32, 8>(self.sent_bytes.val().get_bits::<8>(32))
                }
                43 => self.shadow.d.next = bit_cast::<32, 28>(self.acc.val().get_bits::<28>(32)),
                _ => {}
            }
        }

        // The verdict on the staged write and the read mux, to the front.
        self.front.ok.next = self.ok.val();
        self.front.core_rdata.next = self.rd.val();
        self.front.core_mapped.next = self.mapped.val();

        self.target_ticks.next = self.target_ticks_r.q.val();
        self.target_half.next = self.target_ticks_r.q.val() >> 1;
        self.tupdate_ns.next = bit_cast::<32, 30>(self.tupdate_ns_r.q.val());
        self.alpha.next = self.alpha_r.q.val();
        self.beta.next = self.beta_r.q.val();
        self.limit.next = self.limit_r.q.val();
        self.ecn.next = self.ecn_r.q.val();
        self.bytemode.next = self.bytemode_r.q.val();
        self.mtu.next = bit_cast::<16, 11>(self.mtu_r.q.val());
        self.max_burst.next = bit_cast::<32, 24>(self.burst_ticks_r.q.val());
        self.link_bt.next = self.link_bt_r.q.val();

        if self.rst.val() {
            self.target_us_r.d.next = self.d_target_us.val();
            self.target_ticks_r.d.next = self.d_target_ticks.val();
            self.tupdate_us_r.d.next = self.d_tupdate_us.val();
            self.tupdate_ns_r.d.next = self.d_tupdate_ns.val();
            self.alpha_r.d.next = self.d_alpha.val();
            self.beta_r.d.next = self.d_beta.val();
            self.limit_r.d.next = self.d_limit.val();
            self.ecn_r.d.next = false;
            self.bytemode_r.d.next = false;
            self.mtu_r.d.next = self.d_mtu.val();
            self.burst_us_r.d.next = self.d_burst_us.val();
            self.burst_ticks_r.d.next = self.d_burst_ticks.val();
            self.link_bt_r.d.next = 0.into();
            self.prob_stage.d.next = 0.into();
            self.shadow.d.next = 0.into();
            self.in_range.d.next = false;
            self.prob_hi.d.next = false;
            self.prob_we.next = false;
            self.seed_we.next = false;
            self.mtu_we.next = false;
        }
    }
}
