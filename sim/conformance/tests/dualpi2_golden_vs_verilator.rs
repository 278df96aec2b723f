//! The golden DualPI2 core model against the Verilated RTL, cycle by cycle: directed regimes with
//! coverage checks, then property-based stimuli. Together well over 1,000,000 cycles.

mod common;

use aqm_conformance::lockstep::{Beside, RunStats};
use aqm_conformance::stimulus::{dualpi2_config_strategy, dualpi2_setup, StimulusConfig};
use aqm_golden::dualpi2::classify::Limit;
use aqm_golden::dualpi2::core::{limit_index, DualPi2CoreModel, DualPi2Coverage};
use aqm_golden::dualpi2::decision::Rule;
use aqm_golden::dualpi2::regs::addr;
use proptest::prelude::*;

fn check(name: &str, seed: u64, cfg: StimulusConfig, cycles: u64) -> (RunStats, DualPi2Coverage) {
    common::check::<DualPi2CoreModel>(Beside::Verilator, name, seed, cfg, cycles)
}

fn dualpi2(cfg: StimulusConfig) -> StimulusConfig {
    StimulusConfig {
        core: &aqm_golden::dualpi2::kind::DUALPI2_CORE,
        ..cfg
    }
}

/// L and C traffic in bursts of up to 4 at 8 % of the cycles, `out_ready` high, no register traffic,
/// resets or jumps, after `setup`; every register read in turn every 5,000 cycles.
fn mixed_traffic(setup: Vec<(u8, u32)>) -> StimulusConfig {
    dualpi2(StimulusConfig {
        ns_per_cycle: 1_000,
        arrival_pct: 8,
        max_burst: 4,
        ready_pct: 100,
        reg_pct: 0,
        sweep_every: 5_000,
        reset_every: 0,
        jump_every: 0,
        setup,
        ..StimulusConfig::default()
    })
}

/// Probabilities forced up to 100 % every `force_every` cycles, 2 us per cycle, after `setup`; every
/// register read in turn every 5,000 cycles.
fn forced_overload(
    arrival_pct: u32,
    ready_pct: u32,
    setup: Vec<(u8, u32)>,
    force_every: u32,
) -> StimulusConfig {
    dualpi2(StimulusConfig {
        ns_per_cycle: 2_000,
        arrival_pct,
        ready_pct,
        reg_pct: 0,
        sweep_every: 5_000,
        reset_every: 0,
        setup,
        force_prob_every: force_every,
        force_prob_max: u32::MAX as u64,
        ..StimulusConfig::default()
    })
}

/// Mixed L and C traffic slightly above a paced link's rate: the controller, both queues, the WRR, the
/// step marker and the coupled marks all at work.
#[test]
fn mixed_traffic_on_a_paced_link() {
    let mut setup = dualpi2_setup(1_000, 500, 7 << 8, 1024, 1, true, 2, 200);
    setup.push((addr::C_PROTECTION, 25));
    let cfg = mixed_traffic(setup);
    let (s, c) = check("vl_d2_mixed", 21, cfg, 250_000);
    assert!(
        c.updates > 200 && c.picks_l > 1000 && c.picks_c > 1000,
        "{s:?} {c:?}"
    );
    assert!(
        c.marks_by(Rule::Classic) > 10
            && c.marks_by(Rule::Coupled) > 10
            && c.marks_by(Rule::Step) > 10,
        "{c:?}"
    );
    assert!(
        c.drops_by(Rule::Classic) > 10 && c.passes > 1000 && c.gated_decisions > 10,
        "{c:?}"
    );
    assert!(c.link_waits > 1000 && c.exact_departures > 100, "{c:?}");
}

/// Sparse L and C traffic on a slow link (100 ns per byte) with a 50 us step threshold: a packet
/// behind one or two others waits past the step while the backlog is still below 2 MTU, where the gate
/// shuts off the coupled part but not the step (the egress decides both cases apart and the gate chooses).
#[test]
fn step_marks_below_the_2_mtu_gate() {
    let cfg = StimulusConfig {
        arrival_pct: 1,
        max_burst: 2,
        ..mixed_traffic(dualpi2_setup(1_000, 500, 100 << 8, 1024, 1, true, 2, 50))
    };
    let (s, c) = check("vl_d2_gated_step", 24, cfg, 200_000);
    assert!(
        c.gated_step_marks > 10 && c.marks_by(Rule::Step) > c.gated_step_marks,
        "{s:?} {c:?}"
    );
}

/// The 2 MTU gate's exact edge while MTU changes under traffic. Lengths 1, 249..=251 and 499..=501
/// (sums of a few of them are mostly a multiple of 250 or one off), MTU rewritten among 250, 251, 500,
/// 749 and 750 one cycle in 50 (a write within PARAM_CYCLES of the last is rejected), the link model
/// off and `out_ready` at 30 % (a backlog of a few packets), probabilities forced up to 100 % that
/// the slow controller (an update every 100 ms) leaves standing. The backlog without the head lands
/// on 2 MTU (gate open) and 2 MTU - 1 (shut) thousands of times, and a hundred or more of them in the
/// first cycles under a new MTU; with p' this high, a gate off by one byte, or one that sees MTU a
/// cycle late, changes verdicts (both mutants fail here, the second only here).
#[test]
fn the_2_mtu_gate_at_its_edge_while_mtu_changes() {
    let cfg = StimulusConfig {
        lengths: vec![1, 249, 250, 251, 499, 500, 501],
        rewrite_every: 50,
        rewrites: [250, 251, 500, 749, 750]
            .into_iter()
            .map(|m| (addr::MTU, m))
            .collect(),
        ns_per_cycle: 1_000,
        max_burst: 3,
        ..forced_overload(
            8,
            30,
            dualpi2_setup(100_000, 15_000, 0, 1024, 1, true, 2, 1_000),
            2_000,
        )
    };
    let (s, c) = check("vl_d2_gate_edge", 25, cfg, 600_000);
    assert!(
        c.gate_edges > 2_000 && c.fresh_gate_edges > 100 && c.param_commits > 3_000,
        "{s:?} {c:?}"
    );
    assert!(
        c.gated_decisions > 10_000
            && c.marks_by(Rule::Coupled) > 1_000
            && c.drops_by(Rule::Classic) > 500,
        "{c:?}"
    );
}

/// The same traffic through the wrap of the cores' 40-bit time: 100 ms before `now` reaches 2^41 (bit 40
/// of the input set throughout), 200 ms in all. Updates (one per ms) that stopped at the wrap would leave
/// about 100; sojourns, step marks and link times are compared on both sides.
#[test]
fn mixed_traffic_through_the_wrap_of_the_40_bit_time() {
    let cfg = StimulusConfig {
        start_ns: (1u64 << 41) - 100_000_000,
        ..mixed_traffic(dualpi2_setup(1_000, 500, 7 << 8, 1024, 1, true, 2, 200))
    };
    let (s, c) = check("vl_d2_wrap", 23, cfg, 200_000);
    assert!(
        c.updates > 180 && c.picks_l > 1000 && c.picks_c > 1000,
        "{s:?} {c:?}"
    );
    assert!(
        c.marks_by(Rule::Step) > 10 && c.exact_departures > 100,
        "{c:?}"
    );
}

/// Forced probabilities up to 100 % with k = 2: overload, where L packets are dropped with p'^2. (The
/// controller is busy about half of these cycles, and a PROB write then is rejected: forcing every
/// 1,500 cycles keeps more than 50 recomputes.)
#[test]
fn overload_drops_l_packets_with_drop_overload() {
    let setup = dualpi2_setup(100_000, 15_000, 0, 1024, 3, true, 2, 1_000);
    let cfg = forced_overload(20, 60, setup, 1_500);
    let (s, c) = check("vl_d2_overload", 22, cfg, 200_000);
    assert!(
        c.drops_by(Rule::Overload) > 100 && c.marks_by(Rule::Overload) > 100,
        "{s:?} {c:?}"
    );
    assert!(
        c.overload_decisions > 1000 && c.chained_picks > 100 && c.recomputes > 50,
        "{c:?}"
    );
}

/// drop_overload off: p' is capped at MAX / k at each update and L packets in overload are marked.
#[test]
fn overload_without_drop_overload_marks_and_caps() {
    let setup = dualpi2_setup(10_000, 1, 0, 1024, 1, false, 3, 1_000);
    let cfg = forced_overload(25, 30, setup, 1_500);
    let (s, c) = check("vl_d2_no_drop_overload", 23, cfg, 200_000);
    assert!(
        c.caps > 10 && c.marks_by(Rule::Overload) > 100,
        "{s:?} {c:?}"
    );
    assert_eq!(c.drops_by(Rule::Overload), 0, "{c:?}");
}

/// Every limit: the packet limit of both queues, the byte limit (small MTU, long packets), and a full
/// L queue (everything ECN-capable goes to L).
#[test]
fn packet_byte_and_capacity_limits() {
    let mut c_all = DualPi2Coverage::default();
    for (k, setup) in [
        dualpi2_setup(10_000, 15_000, 200 << 8, 100, 1, true, 2, 1_000),
        {
            let mut s = dualpi2_setup(10_000, 15_000, 200 << 8, 1024, 1, true, 2, 1_000);
            s.push((addr::MTU, 64));
            s
        },
        dualpi2_setup(10_000, 15_000, 200 << 8, 1024, 3, true, 2, 1_000),
    ]
    .into_iter()
    .enumerate()
    {
        let cfg = dualpi2(StimulusConfig {
            ns_per_cycle: 500,
            arrival_pct: 30,
            ready_pct: 90,
            edge_len_pct: 20,
            reg_pct: 0,
            reset_every: 0,
            setup,
            ..StimulusConfig::default()
        });
        let (_, c) = check(&format!("vl_d2_limits{k}"), 24 + k as u64, cfg, 60_000);
        for i in 0..3 {
            c_all.tail_drops[i] += c.tail_drops[i];
        }
    }
    for l in [Limit::Packets, Limit::Bytes, Limit::Capacity] {
        assert!(c_all.tail_drops[limit_index(l)] > 100, "{l:?}: {c_all:?}");
    }
}

/// Board speed (25 ns per cycle), time jumps, resets, soft resets and register traffic of every kind.
#[test]
fn board_speed_with_jumps_resets_and_register_traffic() {
    let cfg = dualpi2(StimulusConfig {
        ns_per_cycle: 25,
        jump_every: 300,
        max_jump_ns: 250_000_000_000,
        reset_every: 30_000,
        reg_pct: 4,
        setup: dualpi2_setup(100, 1_000, 0, 200, 2, true, 2, 100),
        force_prob_every: 3_000,
        force_prob_max: u32::MAX as u64 / 2,
        ..StimulusConfig::default()
    });
    let (s, c) = check("vl_d2_board", 26, cfg, 250_000);
    assert!(
        c.resets > 3 && c.soft_resets > 0 && c.rejected_writes > 50,
        "{s:?} {c:?}"
    );
    assert!(
        c.param_commits > 50 && c.k_commits > 0 && c.seed_loads > 0 && c.counter_clears > 0,
        "{c:?}"
    );
    assert!(
        c.unmapped_reads > 0 && c.credit_resets > 0 && c.updates > 100,
        "{c:?}"
    );
}

/// 32-bit counters past 2^16, compared: two runs of back-to-back L and C packets, every register read
/// in turn every 10,000 cycles. First a short queue served at half the arrival rate: packets in, tail
/// drops, packets sent and L's step marks. Then standing queues under forced probabilities (up to 100 %,
/// with drop_overload) that no update changes within the run: L's AQM drops and the overloads.
#[test]
fn counters_past_16_bits() {
    let run = |setup: Vec<(u8, u32)>, ready_pct: u32| {
        dualpi2(StimulusConfig {
            ns_per_cycle: 1_000,
            arrival_pct: 60,
            max_burst: 8,
            ready_pct,
            reg_pct: 0,
            sweep_every: 10_000,
            reset_every: 0,
            jump_every: 0,
            setup,
            ..StimulusConfig::default()
        })
    };
    let (s, c) = check(
        "vl_d2_counters_queue",
        41,
        run(dualpi2_setup(1_000, 1_000, 0, 16, 1, true, 2, 1), 50),
        400_000,
    );
    let over = |n: u64| n > 1 << 16;
    assert!(
        over(c.verdicts[0][0])
            && over(c.verdicts[1][0])
            && over(c.verdicts[0][1])
            && over(c.verdicts[1][1])
            && over(c.marks.iter().sum()),
        "{s:?} {c:?}"
    );
    let cfg = StimulusConfig {
        force_prob_every: 10_000,
        force_prob_max: u32::MAX as u64,
        ..run(
            dualpi2_setup(1_000_000, 1_000, 0, 1024, 1, true, 2, 200),
            50,
        )
    };
    let (s, c) = check("vl_d2_counters_drops", 42, cfg, 1_200_000);
    // Overload drops (of L packets) and overload decisions.
    assert!(
        over(c.drops[2]) && over(c.overload_decisions),
        "{s:?} {c:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_stimulus_agrees(seed in any::<u64>(), cfg in dualpi2_config_strategy()) {
        check("vl_d2_prop", seed, cfg, 10_000);
    }
}
