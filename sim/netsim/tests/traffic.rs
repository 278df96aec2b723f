//! Each traffic model in a small setting where its behaviour is known.

use aqm_netsim::cc::CcKind;
use aqm_netsim::metrics::RunMetrics;
use aqm_netsim::registry::{AqmSpec, Registry};
use aqm_netsim::runner::run_one;
use aqm_netsim::sim::{RunSpec, Traffic};
use aqm_netsim::tcp::EcnMode;

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

fn spec(rate_bps: u64, duration_s: u64, traffic: Vec<Traffic>) -> RunSpec {
    RunSpec::plain(rate_bps, duration_s * S, 2 * S, traffic)
}

fn run(spec: &RunSpec, aqm: &str, seed: u64) -> RunMetrics {
    run_one(
        spec,
        &Registry::with_builtins(),
        &AqmSpec::parse(aqm).unwrap(),
        seed,
    )
    .unwrap()
    .0
}

fn long(cc: CcKind, ecn: EcnMode, count: u32, rtt_ms: u64) -> Traffic {
    Traffic::Long {
        cc,
        ecn,
        count,
        rtt_ns: rtt_ms * MS,
    }
}

#[test]
fn probe_sends_one_packet_per_interval_and_sees_no_queue_on_an_idle_link() {
    let s = spec(
        10_000_000,
        12,
        vec![Traffic::Probe {
            interval_ns: 10 * MS,
            size: 100,
            rtt_ns: 20 * MS,
        }],
    );
    let m = run(&s, "taildrop", 1);
    // 12 s / 10 ms = 1200 probes (one more or less with the random phase).
    assert!(
        (1199..=1201).contains(&m.conservation.generated),
        "{}",
        m.conservation.generated
    );
    assert_eq!(m.probe_p99_ms, Some(0.0));
    assert_eq!(m.probe_loss, Some(0.0));
    let goodput = m.goodput_mbps["probe"];
    assert!((goodput - 0.08).abs() < 0.002, "{goodput}");
}

#[test]
fn unresponsive_flow_keeps_its_rate_whatever_the_losses() {
    let s = spec(
        10_000_000,
        12,
        vec![Traffic::Cbr {
            rate_bps: 15_000_000,
            size: 1500,
            rtt_ns: 20 * MS,
        }],
    );
    let m = run(&s, "codel", 1);
    // Offered 15 Mbit/s into 10: the link is full and a third of the packets are dropped.
    assert!(m.utilisation > 0.99);
    let sent = m.conservation.generated as f64;
    assert!((sent - 15e6 * 12.0 / 12_000.0).abs() < 2.0, "{sent}");
    // A third of what was sent is dropped or still queued (CoDel cannot keep up and the queue fills).
    let not_sent = (m.conservation.dropped + m.conservation.queued) as f64 / sent;
    assert!((not_sent - 1.0 / 3.0).abs() < 0.01, "{not_sent}");
    let goodput = m.goodput_mbps["cbr"];
    assert!((goodput - 10.0).abs() < 0.1, "{goodput}");
}

#[test]
fn a_reno_flow_fills_a_link_with_a_buffer_of_one_bdp() {
    // 10 Mbit/s, 40 ms: BDP = 33 packets.
    let s = spec(
        10_000_000,
        30,
        vec![long(CcKind::Reno, EcnMode::Off, 1, 40)],
    );
    let m = run(&s, "taildrop:limit=40", 1);
    assert!(m.utilisation > 0.95, "{}", m.utilisation);
    assert!(m.drops["overlimit"] > 0);
    assert_eq!(m.timeouts_long, 0);
    assert_eq!(m.jain, Some(1.0));
}

#[test]
fn cubic_outgrows_reno_on_a_long_fat_path() {
    let s = spec(
        100_000_000,
        40,
        vec![
            long(CcKind::Cubic, EcnMode::Off, 1, 100),
            long(CcKind::Reno, EcnMode::Off, 1, 100),
        ],
    );
    let m = run(&s, "taildrop:limit=400", 1);
    let (cubic, reno) = (m.goodput_mbps["cubic"], m.goodput_mbps["reno"]);
    assert!(cubic > 1.3 * reno, "cubic {cubic} reno {reno}");
}

#[test]
fn classic_ecn_flows_are_marked_instead_of_dropped_and_do_not_retransmit() {
    let s = spec(
        20_000_000,
        20,
        vec![long(CcKind::Reno, EcnMode::Classic, 4, 50)],
    );
    let m = run(&s, "codel:ecn=on", 1);
    assert!(m.marks["codel"] > 20, "{:?}", m.marks);
    assert!(!m.drops.contains_key("codel"), "{:?}", m.drops);
    assert!(m.delay_p50_ms.unwrap() < 10.0);
    assert!(m.utilisation > 0.9);
}

#[test]
fn scalable_flows_respond_to_marks_and_share_a_queue_evenly() {
    let s = spec(
        40_000_000,
        20,
        vec![long(CcKind::Scalable, EcnMode::Scalable, 2, 20)],
    );
    let m = run(&s, "codel:ecn=on,target=1ms,interval=20ms", 1);
    assert!(m.marks["codel"] > 100, "{:?}", m.marks);
    assert_eq!(m.conservation.dropped, 0);
    assert!(m.utilisation > 0.9, "{}", m.utilisation);
    assert!(m.jain.unwrap() > 0.95, "{:?}", m.jain);
}

#[test]
fn short_flows_arrive_as_poisson_and_finish_in_about_three_round_trips_on_an_idle_link() {
    // 40 packets with IW10 and per-packet ACKs: 10, 20, then the last 10 in the third round.
    let s = spec(
        1_000_000_000,
        22,
        vec![Traffic::Short {
            per_second: 5.0,
            packets: 40,
            rtt_ns: 50 * MS,
        }],
    );
    let m = run(&s, "taildrop", 1);
    let done = m.short_done.unwrap();
    assert!(
        (70.0..=130.0).contains(&done),
        "{done} flows in 20 s at 5/s"
    );
    let fct = m.fct_p50_ms.unwrap();
    assert!((2.7 * 50.0..=3.3 * 50.0).contains(&fct), "{fct}");
    assert_eq!(m.short_timeouts, Some(0.0));
}

#[test]
fn short_flows_and_bulk_flows_together_keep_conservation_under_every_reference_aqm() {
    let s = spec(
        10_000_000,
        10,
        vec![
            long(CcKind::Reno, EcnMode::Off, 4, 30),
            Traffic::Short {
                per_second: 10.0,
                packets: 20,
                rtt_ns: 30 * MS,
            },
        ],
    );
    for aqm in [
        "taildrop:limit=30",
        "red",
        "ared",
        "codel",
        "fq_codel:limit=50",
    ] {
        let m = run(&s, aqm, 2);
        assert!(m.conservation.balanced(), "{aqm}");
        assert!(m.conservation.dropped > 0, "{aqm} should drop");
    }
}
