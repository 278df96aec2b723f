//! DualPI2's register file: range checks, state writes (PROB, SEED) and the read mux over state and
//! counters, behind the shared [`RegFront`] (bus, ID / STATUS / CONTROL / CAPACITY, errors); what the
//! parameters read is kept in block RAM (`pmem`), apart from the values the datapath uses.
//! The map is `aqm_golden::dualpi2::regs::DUALPI2_REGS` (decimal addresses here, as `#[hdl_gen]` matches on literals; the ranges are the golden constants, and
//! hdl/tests/regmap.rs checks every entry against this block);
//! the parameters themselves live in [`super::params::DualPi2Params`], which takes a checked write and
//! puts it in effect `PARAM_CYCLES` later.
//!
//! A read returns `reg_rdata` with `reg_rvalid` the cycle after `reg_re`, with the values of the `reg_re`
//! cycle. A write is taken into a register and judged in the following cycle; a rejected write pulses
//! `reg_err` the cycle after that and changes nothing.

use crate::bram::HoldingBlockRam;
use crate::konst::K;
use crate::regfront::{InRange, RegBus, RegFront};
use aqm_golden::dualpi2::consts::HW_QUEUE_CAPACITY;
use aqm_golden::dualpi2::params::{range, HARDWARE_PARAMS as H};
use aqm_golden::dualpi2::regs::{addr, DUALPI2_ID};
use aqm_golden::hw::link::BYTE_TIME_RANGE;
use aqm_golden::hw::FLAG_RANGE;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct DualPi2Regs {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub now40: Signal<In, Bits<40>>,
    pub bus: RegBus,
    // To the parameter engine, and its state.
    pub param_start: Signal<Out, Bit>,
    pub param_addr: Signal<Out, Bits<8>>,
    pub param_data: Signal<Out, Bits<32>>,
    pub param_busy: Signal<In, Bit>,
    /// The engine commits the parameter of this bit (one-hot, bit a - 0x10 for address a) at this edge.
    pub param_commit: Signal<In, Bits<13>>,
    // State and counters, for reads.
    pub ctrl_busy: Signal<In, Bit>,
    pub prng_state: Signal<In, Bits<64>>,
    pub prob: Signal<In, Bits<32>>,
    pub pkts_in_l: Signal<In, Bits<32>>,
    pub pkts_in_c: Signal<In, Bits<32>>,
    pub sent_pkts_l: Signal<In, Bits<32>>,
    pub sent_pkts_c: Signal<In, Bits<32>>,
    pub sent_bytes_l: Signal<In, Bits<40>>,
    pub sent_bytes_c: Signal<In, Bits<40>>,
    pub dropped_enq_l: Signal<In, Bits<32>>,
    pub dropped_enq_c: Signal<In, Bits<32>>,
    pub dropped_aqm_l: Signal<In, Bits<32>>,
    pub dropped_aqm_c: Signal<In, Bits<32>>,
    pub marked_l: Signal<In, Bits<32>>,
    pub marked_c: Signal<In, Bits<32>>,
    pub step_marks: Signal<In, Bits<32>>,
    pub overloads: Signal<In, Bits<32>>,
    pub bytes_l: Signal<In, Bits<22>>,
    pub bytes_c: Signal<In, Bits<22>>,
    pub cnt_l: Signal<In, Bits<10>>,
    pub cnt_c: Signal<In, Bits<10>>,
    pub maxq: Signal<In, Bits<11>>,
    pub hv_l: Signal<In, Bit>,
    pub ts_l: Signal<In, Bits<40>>,
    pub hv_c: Signal<In, Bit>,
    pub ts_c: Signal<In, Bits<40>>,
    pub last_qdelay: Signal<In, Bits<32>>,
    pub credit: Signal<In, Bits<24>>,
    pub updates: Signal<In, Bits<32>>,
    // Strobes to the state owners.
    pub prob_we: Signal<Out, Bit>,
    pub prob_wdata: Signal<Out, Bits<32>>,
    pub seed_we: Signal<Out, Bit>,
    pub seed: Signal<Out, Bits<64>>,
    pub clear_counters: Signal<Out, Bit>,
    /// CONTROL.reset: resets the whole core for one cycle, the cycle after the write is taken.
    pub soft_reset: Signal<Out, Bit>,
    /// What `soft_reset` is in the next cycle.
    pub soft_reset_next: Signal<Out, Bit>,
    /// A write is being taken this cycle.
    pub busy: Signal<Out, Bit>,

    front: RegFront<{ DUALPI2_ID as u64 }, { HW_QUEUE_CAPACITY as u64 }, { addr::SEED_HI as u64 }>,
    /// What the parameters read: every accepted write's value, in one of two slots per parameter
    /// (address {slot, a - 0x10}). A write goes into the slot not in effect when it is accepted, and
    /// the commit makes that slot the one in effect, so that a read never addresses the word written
    /// at its edge and a read up to the commit still gets the old value. A parameter not written since
    /// the reset reads its preset instead. (The values in flip-flops and the read multiplexer's 13
    /// inputs cost about 250 logic cells on the HX8K; this is two block RAMs.)
    pmem: HoldingBlockRam<32, 5>,
    /// Per parameter: the slot in effect, and whether it was written since the reset (16 bits, one
    /// per value of the address's low four bits; 13-15 stay 0).
    slot: DFF<Bits<16>>,
    written: DFF<Bits<16>>,
    /// The read of the last `re` cycle was of a parameter written since the reset: `reg_rdata` is the
    /// RAM's word (held by the RAM until the next read).
    from_mem: DFF<Bit>,
    p_rd: Signal<Local, Bits<4>>,
    p_wr: Signal<Local, Bits<4>>,
    p_read: Signal<Local, Bit>,
    shadow: DFF<Bits<32>>,
    ok: Signal<Local, Bit>,
    param: Signal<Local, Bit>,
    rd: Signal<Local, Bits<32>>,
    mapped: Signal<Local, Bit>,
    head_ts: Signal<Local, Bits<40>>,
    head_v: Signal<Local, Bit>,
    /// The head's age now, now - ts mod 2^40, as its low 32 bits with their borrow (`age_lo`) and its
    /// high byte before that borrow (`age_hi`), apart: the read's saturation (age >= 2^32, its high
    /// byte less the borrow not zero) waits for the 32-bit chain, not a 40-bit one and an 8-input OR.
    age_lo: Signal<Local, Bits<33>>,
    age_hi: Signal<Local, Bits<8>>,
    age_sat: Signal<Local, Bit>,
    /// What DELAY_L or DELAY_C reads (the address has chosen the head).
    delay: Signal<Local, Bits<32>>,
    ones: K<32, 0xFFFF_FFFF>,
    // The parameters' presets, read until a write is committed.
    h_target: K<32, { H.target_us as u64 }>,
    h_tupdate: K<32, { H.tupdate_us as u64 }>,
    h_alpha: K<32, { H.alpha as u64 }>,
    h_beta: K<32, { H.beta as u64 }>,
    h_k: K<32, { H.k as u64 }>,
    h_step: K<32, { H.step_us as u64 }>,
    h_min_qlen: K<32, { H.min_qlen_step as u64 }>,
    h_ecn_mask: K<32, { H.ecn_mask as u64 }>,
    h_dol: K<32, { H.drop_overload as u64 }>,
    h_limit: K<32, { H.limit as u64 }>,
    h_mtu: K<32, { H.mtu as u64 }>,
    h_c_prot: K<32, { H.c_protection as u64 }>,
    sext: K<32, 0xFF00_0000>,
    /// The range check of the write being staged, for the parameter at its address.
    in_range: DFF<Bit>,
    /// The staged write is PROB's: decoded from the bus as the front stages it (as the front's
    /// `ctl_w`), so that `prob_we`, which decides whether the controller starts an update, waits on a
    /// flip-flop and not on the staged address's decoder (that path into the controller's snapshot
    /// enables was the ECP5 four-port build's longest, 11.5 ns).
    prob_w: DFF<Bit>,
    // The accepted ranges, from the golden map's constants, checked on the data being staged (so the
    // judgement in the next cycle reads one flip-flop).
    r_target: InRange<{ range::TARGET_US.0 as u64 }, { range::TARGET_US.1 as u64 }>,
    r_tupdate: InRange<{ range::TUPDATE_US.0 as u64 }, { range::TUPDATE_US.1 as u64 }>,
    r_gain: InRange<{ range::GAIN.0 as u64 }, { range::GAIN.1 as u64 }>,
    r_k: InRange<{ range::K.0 as u64 }, { range::K.1 as u64 }>,
    r_step: InRange<{ range::STEP_US.0 as u64 }, { range::STEP_US.1 as u64 }>,
    r_min_qlen_step: InRange<{ range::MIN_QLEN_STEP.0 as u64 }, { range::MIN_QLEN_STEP.1 as u64 }>,
    r_ecn_mask: InRange<{ range::ECN_MASK.0 as u64 }, { range::ECN_MASK.1 as u64 }>,
    r_flag: InRange<{ FLAG_RANGE.0 as u64 }, { FLAG_RANGE.1 as u64 }>,
    r_limit: InRange<{ range::HW_LIMIT.0 as u64 }, { range::HW_LIMIT.1 as u64 }>,
    r_mtu: InRange<{ range::MTU.0 as u64 }, { range::MTU.1 as u64 }>,
    r_c_prot: InRange<{ range::C_PROTECTION.0 as u64 }, { range::C_PROTECTION.1 as u64 }>,
    r_byte_time: InRange<{ BYTE_TIME_RANGE.0 as u64 }, { BYTE_TIME_RANGE.1 as u64 }>,
}

impl Logic for DualPi2Regs {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, shadow, in_range, prob_w, slot, written, from_mem);
        clock!(self, clock, pmem);
        self.front.clock.next = self.clock.val();
        self.front.rst.next = self.rst.val();
        self.front.seed_lo_we.next = false;
        self.seed.next = self.front.seed.val();
        // The bus, but for the read data: a parameter's comes from the RAM.
        self.front.bus.addr.next = self.bus.addr.val();
        self.front.bus.wdata.next = self.bus.wdata.val();
        self.front.bus.we.next = self.bus.we.val();
        self.front.bus.re.next = self.bus.re.val();
        self.bus.rvalid.next = self.front.bus.rvalid.val();
        self.bus.err.next = self.front.bus.err.val();
        self.bus.rdata.next = self.front.bus.rdata.val();
        if self.from_mem.q.val() {
            self.bus.rdata.next = self.pmem.read_data.val();
        }
        self.front.busy.next = self.ctrl_busy.val() | self.param_busy.val();
        self.clear_counters.next = self.front.clear_counters.val();
        self.soft_reset.next = self.front.soft_reset.val();
        self.soft_reset_next.next = self.front.soft_reset_next.val();
        self.prob_wdata.next = self.front.w_data.val();
        self.param_addr.next = self.front.w_addr.val();
        self.param_data.next = self.front.w_data.val();
        // The range check of the write being taken, judged in the next cycle.
        self.r_target.x.next = self.bus.wdata.val();
        self.r_tupdate.x.next = self.bus.wdata.val();
        self.r_gain.x.next = self.bus.wdata.val();
        self.r_k.x.next = self.bus.wdata.val();
        self.r_step.x.next = self.bus.wdata.val();
        self.r_min_qlen_step.x.next = self.bus.wdata.val();
        self.r_ecn_mask.x.next = self.bus.wdata.val();
        self.r_flag.x.next = self.bus.wdata.val();
        self.r_limit.x.next = self.bus.wdata.val();
        self.r_mtu.x.next = self.bus.wdata.val();
        self.r_c_prot.x.next = self.bus.wdata.val();
        self.r_byte_time.x.next = self.bus.wdata.val();
        self.prob_w.d.next = self.bus.we.val() & (self.bus.addr.val() == 31);
        self.in_range.d.next = false;
        match self.bus.addr.val().index() {
            16 => self.in_range.d.next = self.r_target.ok.val(),
            17 => self.in_range.d.next = self.r_tupdate.ok.val(),
            18 => self.in_range.d.next = self.r_gain.ok.val(),
            19 => self.in_range.d.next = self.r_gain.ok.val(),
            20 => self.in_range.d.next = self.r_k.ok.val(),
            21 => self.in_range.d.next = self.r_step.ok.val(),
            22 => self.in_range.d.next = self.r_min_qlen_step.ok.val(),
            23 => self.in_range.d.next = self.r_ecn_mask.ok.val(),
            24 => self.in_range.d.next = self.r_flag.ok.val(),
            25 => self.in_range.d.next = self.r_limit.ok.val(),
            26 => self.in_range.d.next = self.r_mtu.ok.val(),
            27 => self.in_range.d.next = self.r_c_prot.ok.val(),
            28 => self.in_range.d.next = self.r_byte_time.ok.val(),
            _ => {}
        }
        self.param_start.next = false;
        self.prob_we.next = self.prob_w.q.val() & !self.ctrl_busy.val();
        self.seed_we.next = self.front.seed_we.val();
        self.ok.next = false;
        self.param.next = false;
        if self.front.w_we.val() {
            // The parameters, 16..=28: their range check from the staging cycle (false elsewhere).
            self.param.next = self.in_range.q.val();
            match self.front.w_addr.val().index() {
                29 => {
                    // SEED_LO
                    self.ok.next = true;
                    self.front.seed_lo_we.next = true;
                }
                30 => {
                    // SEED_HI: zero is a fixed point of the generator.
                    // (The load itself, `seed_we`, is the front's, from flip-flops.)
                    self.ok.next = self.front.seed_hi_ok.val();
                }
                31 => {
                    // PROB: only while the controller is idle.
                    // (The write itself, `prob_we`, is decoded from `prob_w`, above.)
                    self.ok.next = !self.ctrl_busy.val();
                }
                _ => {
                    self.ok.next = false;
                }
            }
            if self.param.val() & !self.param_busy.val() {
                self.ok.next = true;
                self.param_start.next = true;
            }
        }

        // The age of a head now, for DELAY_L / DELAY_C (one subtractor: the address picks the head).
        self.head_ts.next = self.ts_l.val();
        self.head_v.next = self.hv_l.val();
        if !self.bus.addr.val().get_bit(0) {
            // DELAY_C is at an even address, DELAY_L at an odd one.
            self.head_ts.next = self.ts_c.val();
            self.head_v.next = self.hv_c.val();
        }
        self.age_lo.next = bit_cast::<33, 32>(self.now40.val().get_bits::<32>(0))
            - bit_cast::<33, 32>(self.head_ts.val().get_bits::<32>(0));
        self.age_hi.next =
            self.now40.val().get_bits::<8>(32) - self.head_ts.val().get_bits::<8>(32);
        // The high byte of now - ts is age_hi less the low half's borrow: not zero unless age_hi is
        // exactly that borrow.
        self.age_sat.next = self.age_hi.val().get_bits::<7>(1).any()
            | (self.age_hi.val().get_bit(0) != self.age_lo.val().get_bit(32));
        // DELAY_L / DELAY_C: 0 with no head, the age saturated at 2^32 - 1.
        self.delay.next = 0.into();
        if self.head_v.val() {
            self.delay.next = self.age_lo.val().get_bits::<32>(0);
            if self.age_sat.val() {
                self.delay.next = self.ones.val();
            }
        }
        self.rd.next = 0.into();
        self.mapped.next = true;
        self.p_read.next = false;
        // The read mux (the front takes it only in a `re` cycle). A parameter reads its preset here,
        // and the RAM's word instead once written (`from_mem`).
        match self.bus.addr.val().index() {
            16 => {
                self.p_read.next = true;
                self.rd.next = self.h_target.val();
            }
            17 => {
                self.p_read.next = true;
                self.rd.next = self.h_tupdate.val();
            }
            18 => {
                self.p_read.next = true;
                self.rd.next = self.h_alpha.val();
            }
            19 => {
                self.p_read.next = true;
                self.rd.next = self.h_beta.val();
            }
            20 => {
                self.p_read.next = true;
                self.rd.next = self.h_k.val();
            }
            21 => {
                self.p_read.next = true;
                self.rd.next = self.h_step.val();
            }
            22 => {
                self.p_read.next = true;
                self.rd.next = self.h_min_qlen.val();
            }
            23 => {
                self.p_read.next = true;
                self.rd.next = self.h_ecn_mask.val();
            }
            24 => {
                self.p_read.next = true;
                self.rd.next = self.h_dol.val();
            }
            25 => {
                self.p_read.next = true;
                self.rd.next = self.h_limit.val();
            }
            26 => {
                self.p_read.next = true;
                self.rd.next = self.h_mtu.val();
            }
            27 => {
                self.p_read.next = true;
                self.rd.next = self.h_c_prot.val();
            }
            28 => {
                // LINK_BYTE_TIME: 0 (no link model) at reset.
                self.p_read.next = true;
            }
            29 => self.rd.next = self.prng_state.val().get_bits::<32>(0),
            30 => self.rd.next = self.shadow.q.val(),
            31 => self.rd.next = self.prob.val(),
            32 => self.rd.next = self.pkts_in_l.val(),
            33 => self.rd.next = self.pkts_in_c.val(),
            34 => self.rd.next = self.sent_pkts_l.val(),
            35 => self.rd.next = self.sent_pkts_c.val(),
            36 => self.rd.next = self.sent_bytes_l.val().get_bits::<32>(0),
            37 => self.rd.next = self.shadow.q.val(),
            38 => self.rd.next = self.sent_bytes_c.val().get_bits::<32>(0),
            39 => self.rd.next = self.shadow.q.val(),
            40 => self.rd.next = self.dropped_enq_l.val(),
            41 => self.rd.next = self.dropped_enq_c.val(),
            42 => self.rd.next = self.dropped_aqm_l.val(),
            43 => self.rd.next = self.dropped_aqm_c.val(),
            44 => self.rd.next = self.marked_l.val(),
            45 => self.rd.next = self.marked_c.val(),
            46 => self.rd.next = self.step_marks.val(),
            47 => self.rd.next = self.overloads.val(),
            48 => self.rd.next = bit_cast::<32, 22>(self.bytes_l.val()),
            49 => self.rd.next = bit_cast::<32, 22>(self.bytes_c.val()),
            50 => self.rd.next = bit_cast::<32, 10>(self.cnt_l.val()),
            51 => self.rd.next = bit_cast::<32, 10>(self.cnt_c.val()),
            52 => self.rd.next = bit_cast::<32, 11>(self.maxq.val()),
            53 => self.rd.next = self.delay.val(), // DELAY_L
            54 => self.rd.next = self.delay.val(), // DELAY_C
            55 => self.rd.next = self.last_qdelay.val(), // saturated by the controller
            56 => {
                // Sign-extended.
                self.rd.next = bit_cast::<32, 24>(self.credit.val());
                if self.credit.val().get_bit(23) {
                    self.rd.next = bit_cast::<32, 24>(self.credit.val()) | self.sext.val();
                }
            }
            57 => self.rd.next = self.updates.val(),
            _ => {
                self.mapped.next = false;
            }
        }

        // The parameters' words: a write into the slot not in effect when it is accepted (it starts the
        // engine), the commit flips the slot; a read of a written parameter from the slot in effect.
        // Addresses 0x10-0x1C: the parameter's index is the address's low four bits.
        self.p_wr.next = self.front.w_addr.val().get_bits::<4>(0);
        self.p_rd.next = self.bus.addr.val().get_bits::<4>(0);
        self.pmem.write_enable.next = self.param_start.val();
        self.pmem.write_address.next = bit_cast::<5, 4>(self.p_wr.val())
            | (bit_cast::<5, 1>((!self.slot.q.val().get_bit(self.p_wr.val().index())).into()) << 4);
        self.pmem.write_data.next = self.front.w_data.val();
        self.pmem.read_address.next = bit_cast::<5, 4>(self.p_rd.val())
            | (bit_cast::<5, 1>(self.slot.q.val().get_bit(self.p_rd.val().index()).into()) << 4);
        self.pmem.read_enable.next = self.bus.re.val()
            & self.p_read.val()
            & self.written.q.val().get_bit(self.p_rd.val().index());
        if self.bus.re.val() {
            self.from_mem.d.next = self.pmem.read_enable.val();
        }
        self.slot.d.next = self.slot.q.val() ^ bit_cast::<16, 13>(self.param_commit.val());
        self.written.d.next = self.written.q.val() | bit_cast::<16, 13>(self.param_commit.val());

        // The high halves of the 64-bit reads, latched by a read of the low half.
        if self.bus.re.val() {
            match self.bus.addr.val().index() {
                29 => self.shadow.d.next = self.prng_state.val().get_bits::<32>(32),
                36 => {
                    self.shadow.d.next =
                        bit_cast::<32, 8>(self.sent_bytes_l.val().get_bits::<8>(32));
                }
                38 => {
                    self.shadow.d.next =
                        bit_cast::<32, 8>(self.sent_bytes_c.val().get_bits::<8>(32));
                }
                _ => {}
            }
        }

        // The verdict on the staged write and the read mux, to the front.
        self.front.ok.next = self.ok.val();
        self.front.core_rdata.next = self.rd.val();
        self.front.core_mapped.next = self.mapped.val();

        self.busy.next = self.front.w_we.val();

        if self.rst.val() {
            self.shadow.d.next = 0.into();
            self.in_range.d.next = false;
            self.prob_w.d.next = false;
            self.written.d.next = 0.into();
            self.from_mem.d.next = false;
            self.param_start.next = false;
            self.prob_we.next = false;
            self.seed_we.next = false;
        }
    }
}
