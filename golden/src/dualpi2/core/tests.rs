//! The contract (hdl/DUALPI2-CORE.md) pinned cycle by cycle on the model, on the shared
//! [`crate::hw::bench::Bench`] (cycle numbers as on the page).

use super::*;
use crate::dualpi2::consts::{coupled_prob, MAX_PROB};
use crate::dualpi2::params::HARDWARE_PARAMS;
use crate::dualpi2::regs::{find, CONTROL_CLEAR_COUNTERS, CONTROL_RESET, DUALPI2_REGS};
use crate::dualpi2::scheduler::initial_credit;
use crate::hw::EventDriver;
use crate::types::Ecn;

const MS: u64 = 1_000_000;
const US: u64 = 1_000;

type Bench = crate::hw::bench::Bench<DualPi2CoreModel>;

impl Bench {
    /// A core reset in cycle 0 at `now`; the bench is in cycle 1.
    fn at(now: u64) -> Bench {
        Bench::after_reset(DualPi2CoreModel::new(), now)
    }

    fn new() -> Bench {
        Bench::at(0)
    }

    /// Offers and waits until idle.
    fn enqueue(&mut self, len: u16, ecn: Ecn, tag: u16) {
        self.offer(len, ecn, tag);
        self.settle();
    }
}

fn prob_of(update_from_zero_ns: u64) -> u32 {
    let mut v = crate::dualpi2::DualPi2Vars::new(&HARDWARE_PARAMS);
    crate::dualpi2::controller::update(&mut v, &HARDWARE_PARAMS, update_from_zero_ns);
    v.prob
}

// ---------------------------------------------------------------- reset

#[test]
fn reset_loads_the_hardware_parameters_and_state() {
    let mut b = Bench::at(1_000);
    assert!(b.out().in_ready && b.out().idle);
    assert_eq!(b.out().next_update, 1_000 + 16 * MS);
    for r in DUALPI2_REGS {
        if matches!(r.access, crate::dualpi2::regs::Access::Rw) && r.addr != addr::SEED_HI {
            assert_eq!(b.reg(r.addr), r.reset, "{}", r.name);
        }
    }
    assert_eq!(b.m.params(), HARDWARE_PARAMS);
    assert_eq!(b.reg(addr::SEED_LO), DEFAULT_SEED as u32);
    assert_eq!(b.reg(addr::SEED_HI), (DEFAULT_SEED >> 32) as u32);
    assert_eq!(b.reg(addr::ID), DUALPI2_ID);
    assert_eq!(b.reg(addr::CAPACITY), 512);
    assert_eq!(b.reg(addr::STATUS), 0);
    assert_eq!(b.reg(addr::CREDIT), (-121_120i32) as u32);
    assert_eq!(b.m.credit(), initial_credit(&HARDWARE_PARAMS));
    // in_ready is low in a reset cycle.
    b.i.rst = true;
    let o = b.clk();
    assert!(!o.in_ready && !o.idle);
}

#[test]
fn power_on_state_is_all_zeros_until_reset() {
    let m = DualPi2CoreModel::new();
    let o = m.outputs(&CoreInputs::default());
    assert_eq!(o.next_update, 0);
    assert_eq!(m.prng_state(), 0);
    assert_eq!(m.credit(), 0);
    assert_eq!(m.params().k, 0);
}

// ---------------------------------------------------------------- ingress

#[test]
fn verdict_arrives_two_cycles_after_acceptance() {
    let mut b = Bench::new();
    let a = b.offer(1500, Ecn::Ect1, 7);
    assert_eq!(b.n, a + 1);
    assert!(!b.clk().verdict_valid); // a+1: stage V
    let o = b.clk(); // a+2
    assert_eq!(VERDICT_LATENCY, 2);
    assert!(o.verdict_valid);
    assert_eq!(
        (o.verdict_tag, o.verdict_code, o.verdict_queue),
        (7, CODE_ENQUEUE, true)
    );
    let o = b.clk(); // a+3
    assert!(!o.verdict_valid);
    assert_eq!(
        (o.verdict_tag, o.verdict_code, o.verdict_queue),
        (0, 0, false)
    );
}

#[test]
fn back_to_back_descriptors_see_each_others_push() {
    let mut b = Bench::new();
    b.set(addr::LIMIT, 1);
    // II = 1: two descriptors in consecutive cycles; the second's stage V counts the first's push.
    b.i.in_valid = true;
    b.i.in_len = 100;
    b.i.in_ecn = 0;
    b.i.in_tag = 1;
    b.clk();
    b.i.in_tag = 2;
    b.i.in_ecn = 1;
    b.clk();
    b.i.in_valid = false;
    let v1 = b.clk();
    let v2 = b.clk();
    assert_eq!(
        (v1.verdict_tag, v1.verdict_code, v1.verdict_queue),
        (1, 0, false)
    );
    assert_eq!(
        (v2.verdict_tag, v2.verdict_code, v2.verdict_queue),
        (2, 3, true)
    );
    b.settle();
    assert_eq!(b.reg(addr::PKTS_IN_C), 1);
    assert_eq!(b.reg(addr::DROPPED_ENQ_L), 1);
    assert_eq!(b.reg(addr::MAXQ), 1);
    assert_eq!(b.m.coverage.tail_drops[limit_index(Limit::Packets)], 1);
}

#[test]
fn class_uses_the_ecn_mask_of_the_acceptance_cycle() {
    for (accept_at, expect_l) in [(PARAM_CYCLES - 1, false), (PARAM_CYCLES, true)] {
        let mut b = Bench::new();
        let w = b.write(addr::ECN_MASK, 2);
        b.clks(w + accept_at - b.n);
        // ECT(0) goes to C with mask 1 and to L with mask 2; the new mask is in effect from w+40,
        // also in the stage V of a descriptor accepted at w+39.
        b.offer(100, Ecn::Ect0, 9);
        b.clk();
        let o = b.clk();
        assert!(o.verdict_valid);
        assert_eq!(o.verdict_queue, expect_l, "accepted at w+{accept_at}");
        b.settle();
        let l = b.m.backlog(QueueId::L).0;
        assert_eq!(l, expect_l as u32);
    }
}

#[test]
fn entries_reach_the_head_four_cycles_after_the_push() {
    let mut b = Bench::new();
    let a = b.offer(100, Ecn::NotEct, 1);
    // Pushed at the edge of a+1: counted in a+2, at the block RAM's output in a+3, in the next-entry
    // register in a+4, in the head register in a+5.
    assert!(!b.clk().idle); // a+1
    assert_eq!(b.m.backlog(QueueId::Classic), (1, 100));
    assert!(!b.clk().idle); // a+2: the push of the previous cycle
    assert_eq!(b.m.queues[0].head(), None); // the state of a+3
    assert!(!b.clk().idle); // a+3: the push of the cycle before the last
    assert_eq!(b.m.queues[0].head(), None); // the state of a+4
    assert!(!b.clk().idle); // a+4: the push three cycles back
    assert!(b.out().idle); // a+5
    assert_eq!(b.n, a + 5);
    assert_eq!(b.m.queues[0].head().map(|h| h.desc.tag), Some(1));
}

// ---------------------------------------------------------------- register file

#[test]
fn a_parameter_write_takes_effect_param_cycles_after_reg_we() {
    // Read TARGET_US in every cycle: the value of cycle r is the old one until w+39.
    let mut b = Bench::new();
    let w = b.write(addr::TARGET_US, 20_000);
    for r in w + 1..w + PARAM_CYCLES + 3 {
        assert_eq!(b.n, r);
        let expect = if r >= w + PARAM_CYCLES {
            20_000
        } else {
            15_000
        };
        assert_eq!(b.m.params().target_us, expect, "cycle w+{}", r - w);
        assert_eq!(b.reg(addr::TARGET_US), expect, "cycle w+{}", r - w);
    }
    // STATUS.busy (bit 1) in w+2 ... w+39.
    let mut b = Bench::new();
    let w = b.write(addr::ALPHA, 100);
    for r in w + 1..w + PARAM_CYCLES + 3 {
        let busy = (w + 2..w + PARAM_CYCLES).contains(&r);
        assert_eq!(b.m.param_engine_busy(), busy, "cycle w+{}", r - w);
        assert_eq!(b.reg(addr::STATUS), (busy as u32) << 1, "cycle w+{}", r - w);
    }
    assert_eq!(b.m.params().alpha, 100);
    assert_eq!(b.m.coverage.param_commits, 1);
}

#[test]
fn idle_is_low_while_a_write_is_taken_and_the_engine_works() {
    let mut b = Bench::new();
    let w = b.write(addr::MTU, 1000);
    for r in w + 1..w + PARAM_CYCLES + 2 {
        assert_eq!(b.out().idle, r >= w + PARAM_CYCLES, "cycle w+{}", r - w);
        b.clk();
    }
}

/// Writes `v` to `a` in a fresh core: reg_err in w+1, w+2 and w+3, and the core afterwards.
fn judge(a: u8, v: u32) -> ([bool; 3], Bench) {
    let mut b = Bench::new();
    b.write(a, v);
    let errs = [b.clk().reg_err, b.clk().reg_err, b.clk().reg_err];
    b.settle();
    (errs, b)
}

#[test]
fn out_of_range_read_only_and_unmapped_writes_are_rejected() {
    let cases = [
        (addr::TARGET_US, 0),
        (addr::TARGET_US, 1_000_001),
        (addr::TUPDATE_US, 99),
        (addr::ALPHA, 0),
        (addr::BETA, 1 << 20),
        (addr::K, 0),
        (addr::K, 256),
        (addr::STEP_US, 1_000_001),
        (addr::ECN_MASK, 0),
        (addr::ECN_MASK, 4),
        (addr::DROP_OVERLOAD, 2),
        (addr::LIMIT, 0),
        (addr::LIMIT, 1025),
        (addr::MTU, 63),
        (addr::MTU, 2048),
        (addr::C_PROTECTION, 101),
        (addr::LINK_BYTE_TIME, 1 << 24),
        (addr::SEED_HI, 0),
        (addr::ID, 1),
        (addr::CAPACITY, 1),
        (addr::PKTS_IN_L, 0),
        (addr::CREDIT, 0),
        (addr::UPDATES, 0),
        (0x0F, 1),
        (0x3A, 1),
        (0xFF, 1),
    ];
    for (a, v) in cases {
        let (errs, mut b) = judge(a, v);
        assert_eq!(errs, [false, true, false], "0x{a:02X} = {v}");
        // Nothing changed but the sticky flag.
        assert_eq!(b.m.params(), HARDWARE_PARAMS);
        assert_eq!(b.m.link_byte_time(), 0);
        assert_eq!(b.m.prng_state(), DEFAULT_SEED);
        assert_eq!(b.m.coverage.rejected_writes, 1);
        assert_eq!(b.reg(addr::STATUS), STATUS_WRITE_ERROR, "0x{a:02X} = {v}");
    }
    // The edges of each range are accepted.
    for r in DUALPI2_REGS
        .iter()
        .filter(|r| (0x10..=0x1C).contains(&r.addr))
    {
        let (lo, hi) = r.range.unwrap();
        for v in [lo, hi] {
            let (errs, mut b) = judge(r.addr, v);
            assert_eq!(errs, [false; 3], "{} = {v}", r.name);
            assert_eq!(b.reg(r.addr), v, "{}", r.name);
        }
    }
}

#[test]
fn write_error_sticks_until_status_bit_0_is_written() {
    let mut b = Bench::new();
    b.write(addr::K, 0);
    b.settle();
    b.set(addr::STATUS, 2); // bit 0 clear: nothing
    assert_eq!(b.reg(addr::STATUS), STATUS_WRITE_ERROR);
    b.set(addr::STATUS, STATUS_WRITE_ERROR);
    assert_eq!(b.reg(addr::STATUS), 0);
}

#[test]
fn a_parameter_write_while_the_engine_works_is_rejected() {
    // A second write taken in w+2 ... w+39 finds the engine busy; one taken in w+40 is accepted.
    for (gap, rejected) in [
        (1, true),
        (PARAM_CYCLES - 2, true),
        (PARAM_CYCLES - 1, false),
    ] {
        let mut b = Bench::new();
        let w = b.write(addr::TARGET_US, 20_000);
        b.clks(w + gap - b.n);
        b.write(addr::ALPHA, 100);
        b.clk();
        assert_eq!(b.out().reg_err, rejected, "second reg_we at w+{gap}");
        b.settle();
        assert_eq!(b.m.params().target_us, 20_000);
        assert_eq!(b.m.params().alpha, if rejected { 41 } else { 100 });
    }
}

#[test]
fn reads_answer_the_next_cycle_and_unmapped_reads_flag_reg_err_only() {
    let mut b = Bench::new();
    b.i.reg_re = true;
    b.i.reg_addr = addr::ID;
    let o = b.clk();
    assert!(!o.reg_rvalid);
    b.i.reg_addr = 0x0F;
    let o = b.clk();
    assert!(o.reg_rvalid && !o.reg_err);
    assert_eq!(o.reg_rdata, DUALPI2_ID);
    b.i.reg_re = false;
    let o = b.clk();
    assert!(o.reg_rvalid && o.reg_err);
    assert_eq!(o.reg_rdata, 0);
    let o = b.clk();
    assert!(!o.reg_rvalid && !o.reg_err);
    assert_eq!(b.reg(addr::STATUS), 0);
    assert_eq!(b.m.coverage.unmapped_reads, 1);
    // Every mapped register answers.
    for r in DUALPI2_REGS {
        assert!(!b.read(r.addr).1, "{}", r.name);
    }
    for a in 0..=255u8 {
        assert_eq!(b.read(a).1, find(a).is_none(), "0x{a:02X}");
    }
}

#[test]
fn seed_writes_load_the_generator_and_the_lo_read_latches_the_shared_shadow() {
    let mut b = Bench::new();
    b.set(addr::SEED_LO, 0x1234_5678);
    let w = b.write(addr::SEED_HI, 0x9ABC_DEF0);
    b.clk(); // w+1: taken
    assert_eq!(b.m.prng_state(), 0x9ABC_DEF0_1234_5678);
    assert_eq!(b.n, w + 2);
    assert_eq!(b.reg(addr::SEED_LO), 0x1234_5678);
    assert_eq!(b.reg(addr::SEED_HI), 0x9ABC_DEF0);
    assert_eq!(b.reg(addr::SEED_HI), 0x9ABC_DEF0);
    // One shadow register for every _LO/_HI pair: SENT_BYTES_L_LO replaces it.
    assert_eq!(b.reg(addr::SENT_BYTES_L_LO), 0);
    assert_eq!(b.reg(addr::SEED_HI), 0);
    // SEED_HI = 0 is accepted when the staged low half is not zero.
    b.set(addr::SEED_HI, 0);
    assert_eq!(b.m.prng_state(), 0x1234_5678);
    // SEED_LO alone changes nothing but the staged half.
    b.set(addr::SEED_LO, 0);
    assert_eq!(b.m.prng_state(), 0x1234_5678);
    b.write(addr::SEED_HI, 0);
    let errs = [b.clk().reg_err, b.clk().reg_err, b.clk().reg_err];
    assert_eq!(errs, [false, true, false]);
    assert_eq!(b.m.prng_state(), 0x1234_5678);
    assert_eq!(b.m.coverage.seed_loads, 2);
}

impl Bench {
    /// Dequeues the packet shown in this cycle.
    fn finish_one(&mut self) -> CoreOutputs {
        self.i.out_ready = true;
        let o = self.clk();
        self.i.out_ready = false;
        assert!(o.out_valid);
        o
    }
}

#[test]
fn a_pick_consumes_the_generators_next_word_and_a_seed_load_wins() {
    let mut b = Bench::new();
    b.enqueue(100, Ecn::NotEct, 1);
    b.enqueue(100, Ecn::NotEct, 2);
    let s0 = b.m.prng_state();
    b.finish_one();
    assert_eq!(b.m.prng_state(), XorShift64::step(s0));
    b.settle();
    // A SEED_HI write taken in the cycle of a pick: the seed wins.
    b.set(addr::SEED_LO, 5);
    b.write(addr::SEED_HI, 0);
    let o = b.finish_one(); // w+1: the write is taken and the packet dequeued
    assert_eq!(o.out_tag, 2);
    assert_eq!(b.m.prng_state(), 5);
    b.settle();
}

#[test]
fn status_busy_covers_the_controller() {
    let mut b = Bench::new();
    let w = b.write(addr::PROB, 1000);
    for r in w + 1..w + 1 + RECOMPUTE_CYCLES + 2 {
        let busy = (w + 2..w + 1 + RECOMPUTE_CYCLES).contains(&r);
        assert_eq!(b.m.controller_busy(), busy, "cycle w+{}", r - w);
        assert_eq!(b.reg(addr::STATUS), (busy as u32) << 1, "cycle w+{}", r - w);
    }
}

// ---------------------------------------------------------------- controller

/// A core with a C packet enqueued at 11 ms, `now` = 16 ms (the first update is due), in cycle t0.
fn due_at_16ms() -> (Bench, u64) {
    let mut b = Bench::new();
    b.i.now = 11 * MS;
    b.enqueue(1500, Ecn::NotEct, 1);
    b.i.now = 16 * MS;
    let t0 = b.n;
    (b, t0)
}

#[test]
fn update_fires_the_cycle_after_it_is_due_and_commits_update_cycles_later() {
    let (mut b, t0) = due_at_16ms();
    let p = prob_of(5 * MS);
    assert_eq!(p, 0x03AE_F20B);
    // t0: due; t0+1: fire, the update starts; results visible in t0+1+UPDATE_CYCLES.
    for c in t0..t0 + UPDATE_CYCLES + 4 {
        assert_eq!(b.n, c);
        let started = c > t0 + 1;
        let done = c >= t0 + 1 + UPDATE_CYCLES;
        assert_eq!(b.out().next_update, if started { 32 * MS } else { 16 * MS });
        assert_eq!(b.m.prob(), if done { p } else { 0 }, "cycle t0+{}", c - t0);
        assert_eq!(
            b.m.controller_busy(),
            started && !done,
            "cycle t0+{}",
            c - t0
        );
        assert_eq!(b.out().idle, done, "cycle t0+{}", c - t0);
        b.clk();
    }
    assert_eq!(b.m.last_qdelay(), 5 * MS);
    assert_eq!(b.m.kp(), 2 * p as u64);
    assert!(!b.m.overload_flag());
    assert_eq!(b.reg(addr::PROB), 0x03AE_F20B);
    assert_eq!(b.reg(addr::UPDATES), 1);
    assert_eq!(b.reg(addr::LAST_QDELAY), 5_000_000);
    assert_eq!(b.m.coverage.updates, 1);
}

#[test]
fn update_uses_the_older_head_at_the_due_time_not_now() {
    let mut b = Bench::new();
    b.i.now = 3 * MS;
    b.enqueue(1500, Ecn::Ect1, 1); // L, 13 ms old at 16 ms
    b.i.now = 9 * MS;
    b.enqueue(1500, Ecn::NotEct, 2); // C, 7 ms old
                                     // Late: now is already 20 ms, the update still measures at 16 ms.
    b.i.now = 20 * MS;
    b.settle();
    assert_eq!(b.m.last_qdelay(), 13 * MS);
    assert_eq!(b.m.prob(), prob_of(13 * MS));
    assert_eq!(b.out().next_update, 32 * MS);
    // Empty queues count 0.
    let mut e = Bench::new();
    e.i.now = 16 * MS;
    e.settle();
    assert_eq!((e.m.last_qdelay(), e.m.prob()), (0, 0));
    assert_eq!(e.m.coverage.updates, 1);
}

#[test]
fn updates_due_back_to_back_run_one_after_the_other() {
    let mut b = Bench::new();
    b.enqueue(1500, Ecn::NotEct, 1);
    b.i.now = 50 * MS;
    b.settle();
    // 16, 32 and 48 ms, each measured at its own time.
    assert_eq!(b.m.coverage.updates, 3);
    assert_eq!(b.m.last_qdelay(), 48 * MS);
    assert_eq!(b.out().next_update, 64 * MS);
    let mut v = crate::dualpi2::DualPi2Vars::new(&HARDWARE_PARAMS);
    for t in [16, 32, 48] {
        crate::dualpi2::controller::update(&mut v, &HARDWARE_PARAMS, t * MS);
    }
    assert_eq!(b.m.prob(), v.prob);
}

#[test]
fn without_drop_overload_the_update_caps_p_at_max_over_k() {
    let mut b = Bench::new();
    b.set(addr::DROP_OVERLOAD, 0);
    b.set(addr::PROB, MAX_PROB);
    assert!(b.m.overload_flag());
    b.i.now = 16 * MS;
    b.settle();
    assert_eq!(b.m.prob(), MAX_PROB / 2);
    assert!(!b.m.overload_flag());
    assert_eq!(b.m.coverage.caps, 1);
}

#[test]
fn prob_write_recomputes_kp_and_overload_after_recompute_cycles() {
    let mut b = Bench::new();
    let p = MAX_PROB / 2 + 1;
    let w = b.write(addr::PROB, p);
    for c in w + 1..w + RECOMPUTE_CYCLES + 3 {
        let done = c >= w + 1 + RECOMPUTE_CYCLES;
        assert_eq!(b.m.prob(), if done { p } else { 0 }, "cycle w+{}", c - w);
        assert_eq!(b.m.overload_flag(), done);
        assert_eq!(b.out().idle, done, "cycle w+{}", c - w);
        b.clk();
    }
    assert_eq!(b.m.kp(), coupled_prob(2, p));
    assert_eq!(b.reg(addr::PROB), p);
    assert_eq!(b.reg(addr::UPDATES), 0);
    assert_eq!(b.m.coverage.recomputes, 1);
}

#[test]
fn prob_write_while_the_controller_works_is_rejected() {
    let (mut b, t0) = due_at_16ms();
    b.clks(2); // t0+2: the update runs
    let w = b.write(addr::PROB, 1234);
    b.clk();
    assert!(b.out().reg_err);
    b.settle();
    assert_eq!(b.m.prob(), prob_of(5 * MS));
    assert!(w > t0);
    // Taken in the very cycle the update fires (controller Idle): the PROB strobe wins, the update
    // follows.
    let (mut b, t0) = due_at_16ms();
    let w = b.write(addr::PROB, 1234);
    assert_eq!(w, t0);
    b.clk();
    assert!(!b.out().reg_err);
    b.settle();
    assert_eq!(b.m.coverage.recomputes, 1);
    assert_eq!(b.m.coverage.updates, 1);
    let mut v = crate::dualpi2::DualPi2Vars::new(&HARDWARE_PARAMS);
    v.prob = 1234;
    crate::dualpi2::controller::update(&mut v, &HARDWARE_PARAMS, 5 * MS);
    assert_eq!(b.m.prob(), v.prob);
}

#[test]
fn k_commit_marks_dirty_and_recomputes_with_the_new_k() {
    let mut b = Bench::new();
    let p = 1 << 30;
    b.set(addr::PROB, p);
    let w = b.write(addr::K, 5);
    for c in w + 1..w + PARAM_CYCLES + RECOMPUTE_CYCLES + 2 {
        let k_new = c >= w + PARAM_CYCLES;
        let kp_new = c >= w + PARAM_CYCLES + RECOMPUTE_CYCLES;
        assert_eq!(
            b.m.params().k,
            if k_new { 5 } else { 2 },
            "cycle w+{}",
            c - w
        );
        assert_eq!(b.m.dirty(), c == w + PARAM_CYCLES, "cycle w+{}", c - w);
        assert_eq!(b.m.kp(), coupled_prob(if kp_new { 5 } else { 2 }, p));
        assert_eq!(b.m.overload_flag(), kp_new, "cycle w+{}", c - w);
        b.clk();
    }
    assert!(b.out().idle);
}

// ---------------------------------------------------------------- egress

#[test]
fn a_dequeue_loop_takes_one_cycle_per_packet() {
    let mut b = Bench::new();
    for tag in 0..5 {
        b.enqueue(100 + tag, Ecn::Ect1, tag);
    }
    b.i.now = 5 * US;
    b.i.out_ready = true;
    let t = b.n;
    let mut seen = vec![];
    for _ in 0..20 {
        let c = b.n;
        let o = b.clk();
        if o.out_valid {
            seen.push((
                c - t,
                o.out_tag,
                o.out_len,
                o.out_sojourn,
                o.out_queue,
                o.out_drop,
            ));
        }
    }
    let expect: Vec<_> = (0..5u16)
        .map(|k| (k as u64, k, 100 + k, 5 * US, true, false))
        .collect();
    assert_eq!(seen, expect);
    assert_eq!(b.m.coverage.picks_l, 5);
    assert_eq!(b.reg(addr::SENT_PKTS_L), 5);
    assert_eq!(b.reg(addr::SENT_BYTES_L_LO), 510);
    assert_eq!(b.reg(addr::BACKLOG_PKTS_L), 0);
}

#[test]
fn the_head_is_shown_until_out_ready_takes_it() {
    let mut b = Bench::new();
    b.enqueue(300, Ecn::NotEct, 3);
    // Shown with the sojourn of each cycle's now; nothing changes while nobody takes it.
    for k in 0..10 {
        b.i.now = 1_000 * k;
        let o = b.clk();
        assert!(o.out_valid && o.idle);
        assert_eq!((o.out_tag, o.out_len, o.out_queue), (3, 300, false));
        assert_eq!(o.out_sojourn, 1_000 * k);
    }
    b.i.out_ready = true;
    let o = b.clk(); // the dequeue
    assert!(o.out_valid && !o.idle);
    b.i.out_ready = false;
    let o = b.clk(); // the counters take it
    assert!(!o.out_valid && !o.idle);
    assert_eq!((o.out_tag, o.out_len, o.out_sojourn), (0, 0, 0));
    assert!(b.clk().idle);
    assert_eq!(b.m.coverage.departures, 1);
}

#[test]
fn chained_picks_keep_the_first_departure_time() {
    let mut b = Bench::new();
    for tag in 0..10 {
        b.enqueue(1500, Ecn::NotEct, tag);
    }
    // p' = 100 %: every C packet with 2 MTU behind it is dropped (tags 0-6), tag 7 is sent.
    b.set(addr::PROB, MAX_PROB);
    b.i.now = 1_000;
    b.i.out_ready = true;
    let mut beats = vec![];
    while beats.len() < 8 {
        let o = b.clk();
        b.i.now += 7; // time runs on during the request
        if o.out_valid {
            beats.push((o.out_tag, o.out_drop, o.out_sojourn, o.out_ecn));
        }
    }
    b.i.out_ready = false;
    let expect: Vec<_> = (0..8).map(|t| (t, t < 7, 1_000, 0)).collect();
    assert_eq!(beats, expect);
    assert_eq!(b.m.coverage.chained_picks, 7);
    assert_eq!(b.m.coverage.drops_by(Rule::Classic), 7);
    assert_eq!(b.reg(addr::DROPPED_AQM_C), 7);
    assert_eq!(b.reg(addr::SENT_PKTS_C), 1);
    // A new request takes a new time.
    b.settle();
    let t = b.i.now;
    b.i.out_ready = true;
    assert_eq!(b.out().out_sojourn, t);
}

#[test]
fn credit_moves_at_the_send_and_resets_when_a_request_finds_both_queues_empty() {
    let mut b = Bench::new();
    b.enqueue(1000, Ecn::Ect1, 1);
    b.enqueue(1000, Ecn::NotEct, 2);
    b.i.out_ready = true;
    assert_eq!(b.m.credit(), -121_120);
    b.clk(); // L sent, both backlogged
    assert_eq!(b.m.credit(), -121_120 + 10 * 1000);
    b.clk(); // C, alone now: no change
    assert_eq!(b.m.credit(), -121_120 + 10 * 1000);
    assert_eq!(b.m.coverage.credit_resets, 0);
    // The request goes on with both queues empty: the credit resets at this edge (where the counters
    // take the C packet), and the core is idle after it.
    assert!(!b.out().idle);
    b.clk();
    assert_eq!(b.m.credit(), -121_120);
    assert_eq!(b.m.coverage.credit_resets, 1);
    assert!(b.out().idle);
    assert_eq!(b.reg(addr::CREDIT), (-121_120i32) as u32);
    // The reset takes the MTU and C protection in effect.
    b.i.out_ready = false;
    b.set(addr::C_PROTECTION, 60);
    b.i.out_ready = true;
    b.clk();
    assert_eq!(b.m.credit(), 1514 * (60 - 40));
}

#[test]
fn the_decision_sees_the_backlog_without_the_head() {
    // Two C packets of 1514 bytes, p' = 100 %: the first leaves 1515 < 2 MTU behind it, so it passes.
    let mut b = Bench::new();
    b.enqueue(1514, Ecn::NotEct, 1);
    b.enqueue(1514, Ecn::NotEct, 2);
    b.enqueue(1, Ecn::NotEct, 3);
    b.set(addr::PROB, MAX_PROB);
    b.i.out_ready = true;
    let o = b.clk();
    assert!(o.out_valid && !o.out_drop);
    assert_eq!(b.m.coverage.gated_decisions, 1);
}

#[test]
fn step_marks_count_as_marks_and_step_marks() {
    let mut b = Bench::new();
    b.enqueue(100, Ecn::Ect1, 1);
    b.i.now = 2 * MS;
    b.i.out_ready = true;
    let o = b.clk();
    assert!(o.out_valid);
    assert_eq!(o.out_ecn, 3);
    assert_eq!(b.m.coverage.marks_by(Rule::Step), 1);
    b.i.out_ready = false;
    b.clk(); // the counters take it
    assert_eq!(b.reg(addr::MARKED_L), 1);
    assert_eq!(b.reg(addr::STEP_MARKS), 1);
    // ECT(0) is an L packet with ECN_MASK 3.
    let mut b = Bench::new();
    b.set(addr::ECN_MASK, 3);
    b.enqueue(100, Ecn::Ect0, 1);
    b.i.now = 2 * MS;
    b.i.out_ready = true;
    let o = b.clk();
    assert!(o.out_valid && !o.out_drop);
    assert_eq!((o.out_ecn, o.out_queue), (3, true));
}

#[test]
fn the_link_model_paces_departures_at_link_byte_time() {
    let mut b = Bench::new();
    b.set(addr::LINK_BYTE_TIME, 8 << 8); // 8 ns per byte
    for tag in 0..3 {
        b.enqueue(1000, Ecn::Ect1, tag);
    }
    b.i.now = 10_000;
    b.i.out_ready = true;
    let mut deps = vec![];
    for _ in 0..400 {
        let o = b.clk();
        b.i.now += 100;
        if o.out_valid {
            deps.push(o.out_sojourn);
            assert!(!o.link_busy);
        }
    }
    // Back to back at exactly 8000 ns each: the link's end of transmission, not the cycle's now.
    assert_eq!(deps, [10_000, 18_000, 26_000]);
    assert_eq!(b.m.coverage.link_waits, 3);
    assert_eq!(b.m.coverage.exact_departures, 2);
}

// ---------------------------------------------------------------- counters, reset, idle

#[test]
fn counters_read_back_and_clear_with_control_bit_1() {
    let mut d = EventDriver::new(DualPi2CoreModel::new());
    for tag in 0..6u16 {
        d.offer(200, Ecn::from_bits(tag as u8), tag).unwrap();
    }
    d.dequeue(true).unwrap();
    d.dequeue(true).unwrap();
    let s = d.core().stats();
    let mut r = |a| d.read_reg(a).unwrap();
    assert_eq!(r(addr::PKTS_IN_L), s.l.pkts_in as u32);
    assert_eq!(r(addr::PKTS_IN_C), 3);
    assert_eq!(r(addr::PKTS_IN_L), 3);
    assert_eq!(r(addr::SENT_PKTS_L) + r(addr::SENT_PKTS_C), 2);
    assert_eq!(r(addr::MAXQ), 6);
    assert_eq!(r(addr::BACKLOG_PKTS_L) + r(addr::BACKLOG_PKTS_C), 4);
    assert_eq!(r(addr::BACKLOG_BYTES_L) + r(addr::BACKLOG_BYTES_C), 800);
    d.write_reg(addr::CONTROL, CONTROL_CLEAR_COUNTERS).unwrap();
    let mut r = |a| d.read_reg(a).unwrap();
    for a in [
        addr::PKTS_IN_L,
        addr::PKTS_IN_C,
        addr::SENT_PKTS_L,
        addr::SENT_PKTS_C,
        addr::SENT_BYTES_L_LO,
        addr::SENT_BYTES_C_LO,
        addr::MAXQ,
        addr::UPDATES,
    ] {
        assert_eq!(r(a), 0, "0x{a:02X}");
    }
    // The backlogs are state, not counters.
    assert_eq!(r(addr::BACKLOG_PKTS_L) + r(addr::BACKLOG_PKTS_C), 4);
    assert_eq!(d.core().coverage.counter_clears, 1);
}

#[test]
fn a_clear_wins_over_an_increment_at_the_same_edge() {
    let mut b = Bench::new();
    // The verdict's counters change at the edge of a+1; the clear of a write with reg_we in a acts at
    // the same edge.
    b.i.in_valid = true;
    b.i.in_len = 100;
    b.i.reg_we = true;
    b.i.reg_addr = addr::CONTROL;
    b.i.reg_wdata = CONTROL_CLEAR_COUNTERS;
    b.clk();
    b.i.in_valid = false;
    b.i.reg_we = false;
    b.clk();
    b.settle();
    assert_eq!(b.reg(addr::PKTS_IN_C), 0);
    assert_eq!(b.m.backlog(QueueId::Classic).0, 1);
    // One cycle later, it counts.
    b.i.in_valid = true;
    b.clk();
    b.i.in_valid = false;
    b.clk();
    b.settle();
    assert_eq!(b.reg(addr::PKTS_IN_C), 1);
}

#[test]
fn control_bit_0_resets_the_core_two_cycles_after_reg_we() {
    let mut b = Bench::new();
    b.set(addr::TARGET_US, 20_000);
    b.enqueue(100, Ecn::Ect1, 1);
    b.set(addr::PROB, 77);
    b.i.now = 3 * MS;
    let w = b.write(addr::CONTROL, CONTROL_RESET);
    // A write with reg_we in w+1 is taken in the reset cycle w+2: lost.
    b.i.reg_we = true;
    b.i.reg_addr = addr::ALPHA;
    b.i.reg_wdata = 99;
    let o1 = b.clk(); // w+1
    b.i.reg_we = false;
    b.i.now = 4 * MS;
    let o2 = b.clk(); // w+2: the reset cycle
    let o3 = b.clk(); // w+3
    assert!(o1.in_ready && !o2.in_ready && o3.in_ready);
    assert!(!o1.idle && !o2.idle);
    assert_eq!(b.n, w + 4);
    assert_eq!(b.m.params(), HARDWARE_PARAMS);
    assert_eq!(b.m.prob(), 0);
    assert_eq!(b.m.backlog(QueueId::L), (0, 0));
    assert_eq!(o3.next_update, 4 * MS + 16 * MS);
    assert_eq!(b.m.prng_state(), DEFAULT_SEED);
    assert_eq!(b.m.coverage.soft_resets, 1);
    assert_eq!(b.reg(addr::STATUS), 0);
}

#[test]
fn registers_saturate_and_credit_reads_signed() {
    let mut b = Bench::new();
    b.enqueue(100, Ecn::NotEct, 1);
    b.i.now = 5_000_000_000; // 5 s
    b.settle(); // the updates of 5 s, each with the head's age
    assert_eq!(b.reg(addr::DELAY_C), u32::MAX);
    assert_eq!(b.reg(addr::DELAY_L), 0);
    assert!(b.m.last_qdelay() > u32::MAX as u64);
    assert_eq!(b.reg(addr::LAST_QDELAY), u32::MAX);
    let mut b2 = Bench::new();
    b2.enqueue(100, Ecn::Ect1, 1);
    b2.i.now = 1_234;
    assert_eq!(b2.reg(addr::DELAY_L), 1_234);
    assert_eq!(b2.reg(addr::CREDIT) as i32, -121_120);
}

#[test]
fn idle_is_low_exactly_while_work_is_in_flight() {
    let mut b = Bench::new();
    b.enqueue(100, Ecn::NotEct, 1);
    // A request: not idle in the dequeue and the cycle after (the counters take it), idle with the
    // request going on and nothing to dequeue.
    b.i.out_ready = true;
    let idles: Vec<bool> = (0..4).map(|_| b.clk().idle).collect();
    assert_eq!(idles, [false, false, true, true]);
    b.i.out_ready = false;
    // A due update: not idle from the due cycle to the commit.
    b.i.now = 16 * MS;
    let mut n = 0;
    while !b.clk().idle {
        n += 1;
    }
    assert_eq!(n, 1 + UPDATE_CYCLES);
}

// ---------------------------------------------------------------- robustness

#[test]
fn any_inputs_never_panic_and_keep_the_stream_outputs_clean() {
    for seed in 1..=4u64 {
        let mut g = XorShift64::new(seed).unwrap();
        let mut m = DualPi2CoreModel::new();
        let mut now = 0u64;
        for n in 0..60_000u64 {
            let w = g.next_word();
            now += match w & 0xF {
                0 => g.next_word() & ((1 << 38) - 1),
                1..=4 => g.next_word() & 0xF_FFFF,
                _ => 0,
            };
            // Seed 1 never resets: the power-on state must not panic either.
            let rst = seed != 1 && (n == 0 || w >> 60 == 0);
            let r = g.next_word();
            let i = CoreInputs {
                rst,
                now,
                in_valid: (w >> 8) & 1 != 0,
                in_len: (r >> 16) as u16,
                in_ecn: (r >> 32) as u8,
                in_tag: r as u16,
                out_ready: (w >> 9) & 3 != 0,
                reg_addr: if (w >> 20) & 1 != 0 {
                    (w >> 24) as u8 & 0x3F
                } else {
                    (w >> 24) as u8
                },
                reg_wdata: match (w >> 32) & 3 {
                    0 => (r >> 40) as u32 & 0xFF,
                    1 => (r >> 40) as u32 & 0xFFFF,
                    _ => (r >> 32) as u32,
                },
                reg_we: (w >> 11) & 0xF == 0,
                reg_re: (w >> 15) & 3 == 0,
            };
            let o = m.step(&i);
            if !o.verdict_valid {
                assert_eq!(
                    (o.verdict_tag, o.verdict_code, o.verdict_queue),
                    (0, 0, false)
                );
            } else {
                assert!(o.verdict_code == 0 || o.verdict_code == 3);
            }
            if !o.out_valid {
                assert_eq!((o.out_len, o.out_tag, o.out_sojourn), (0, 0, 0));
                assert!(!o.out_queue && !o.out_drop && o.out_ecn == 0);
            }
            assert!(o.out_sojourn <= TIME_MASK && o.next_update <= TIME_MASK);
            assert!(o.link_free <= TIME_MASK);
            let (l, c) = (m.backlog(QueueId::L).0, m.backlog(QueueId::Classic).0);
            assert!(l <= HW_QUEUE_CAPACITY && c <= HW_QUEUE_CAPACITY);
        }
        let cov = m.coverage;
        assert!(cov.rejected_writes > 0 && cov.param_commits > 0, "{cov:?}");
        if seed != 1 {
            assert!(cov.updates > 0 && cov.picks_l + cov.picks_c > 0, "{cov:?}");
        }
    }
}

// ---------------------------------------------------------------- readings of the contract

#[test]
fn the_decision_uses_k_through_kp_until_the_recompute() {
    // p' = 50 % - 1: with k = 2 not in overload, with k = 3 in overload. K = 3 is in effect from
    // w + PARAM_CYCLES, kp (and the overload flag) RECOMPUTE_CYCLES later: a decision just before still
    // uses k = 2.
    let at = PARAM_CYCLES + RECOMPUTE_CYCLES;
    for (decide_at, rule) in [
        (at - 2, Rule::Coupled),
        (at - 1, Rule::Coupled),
        (at, Rule::Overload),
    ] {
        let mut b = Bench::new();
        b.set(addr::PROB, 0x7FFF_FFFF);
        for tag in 0..3 {
            b.enqueue(1514, Ecn::Ect1, tag);
        }
        let w = b.write(addr::K, 3);
        b.clks(w + decide_at - b.n);
        assert_eq!(b.m.params().k, 3);
        b.i.out_ready = true;
        let d = b.m.egress_decision(&b.i).unwrap();
        b.clk(); // the dequeue
        b.i.out_ready = false;
        let got = match d.verdict {
            Verdict::Mark(r) | Verdict::Drop(r) => r,
            Verdict::Pass => panic!("pass"),
        };
        assert_eq!(got, rule, "decided in w+{decide_at}");
        assert_eq!(d.overload, rule == Rule::Overload);
    }
}

#[test]
fn a_tupdate_write_re_arms_the_controller_from_its_commit() {
    let mut b = Bench::new();
    b.i.now = 3 * MS;
    let w = b.write(addr::TUPDATE_US, 5_000);
    // Committed at the edge of cycle w + PARAM_CYCLES - 1, with that cycle's now.
    b.clks(w + PARAM_CYCLES - 1 - b.n);
    assert_eq!(b.out().next_update, 16 * MS);
    b.i.now = 4 * MS;
    b.clk();
    assert_eq!(b.out().next_update, 9 * MS);
    b.i.now = 9 * MS;
    b.settle();
    assert_eq!(b.out().next_update, 14 * MS);
}

#[test]
fn mtu_and_c_protection_commits_restart_the_credit() {
    let mut b = Bench::new();
    b.set(addr::MTU, 1000);
    assert_eq!(b.m.credit(), 1000 * (10 - 90));
    b.set(addr::C_PROTECTION, 60);
    assert_eq!(b.m.credit(), 1000 * (60 - 40));
    b.i.out_ready = true;
    b.clk();
    assert_eq!(b.m.credit(), 1000 * (60 - 40));
}

#[test]
fn a_read_or_write_in_a_reset_cycle_is_lost() {
    let mut b = Bench::new();
    b.i.rst = true;
    b.i.reg_re = true;
    b.i.reg_we = true;
    b.i.reg_addr = addr::ALPHA;
    b.i.reg_wdata = 7;
    b.clk();
    b.i.rst = false;
    b.i.reg_re = false;
    b.i.reg_we = false;
    let o = b.clk();
    assert!(!o.reg_rvalid && !o.reg_err);
    b.settle();
    assert_eq!(b.m.params().alpha, 41);
}

#[test]
fn a_request_on_a_descriptor_not_yet_at_the_head_resets_the_credit() {
    // The push of a+1 is at the head in a+5: a request in a+2 to a+4 finds both heads invalid.
    let mut b = Bench::new();
    b.enqueue(1000, Ecn::Ect1, 1);
    b.enqueue(1000, Ecn::NotEct, 2);
    b.finish_one();
    assert_eq!(b.m.credit(), -121_120 + 10_000);
    b.finish_one();
    b.offer(100, Ecn::Ect1, 3);
    b.clk(); // a+1
    b.i.out_ready = true;
    b.clk(); // a+2
    assert_eq!(b.m.credit(), -121_120);
    assert!(!b.clk().out_valid); // a+3
    assert_eq!(b.m.credit(), -121_120);
    assert!(!b.clk().out_valid); // a+4
    assert_eq!(b.m.credit(), -121_120);
    assert!(b.out().out_valid); // a+5: at the head, dequeued
    b.clk();
    assert_eq!(b.m.credit(), -121_120);
    assert_eq!(b.m.backlog(QueueId::L).1, 0);
}

#[test]
fn the_departure_counters_take_a_dequeue_at_the_next_edge() {
    let mut b = Bench::new();
    b.enqueue(100, Ecn::NotEct, 1);
    b.enqueue(200, Ecn::NotEct, 2);
    b.i.out_ready = true;
    assert!(b.out().out_valid && !b.out().out_drop);
    b.clk(); // t: the dequeue
    b.i.out_ready = false;
    // A read in t+1 (the next packet shown, not taken) has the values of t+1: not yet counted.
    assert!(b.out().out_valid);
    assert_eq!(b.reg(addr::SENT_PKTS_C), 0);
    // t+2 on.
    assert_eq!(b.reg(addr::SENT_PKTS_C), 1);
    assert_eq!(b.reg(addr::SENT_BYTES_C_LO), 100);
    assert_eq!(b.reg(addr::SENT_PKTS_L), 0);
}
