//! A network-simulator run's descriptor trace through the Verilated board tops (the PIE and the DualPI2
//! line card), end to end: simulated, streamed over the UART at the simulator's pace, and checked against
//! the golden model bit for bit; and the check's mismatch reports.

use aqm_golden::dualpi2;
use aqm_golden::dualpi2::kind::DUALPI2_CORE;
use aqm_golden::hw::CoreParams as _;
use aqm_golden::pie::kind::PIE_CORE;
use aqm_golden::pie::regs::addr;
use aqm_host::board_core::Core;
use aqm_host::client::Client;
use aqm_host::sim_trace::{simulate, stream_paced, Arrival, SimRun, SimRunOptions};
use aqm_host::stream::{check_stream, StreamRecord};
use aqm_host::tc::{link_byte_time, parse_set};
use aqm_host::transport::SimTransport;
use std::sync::OnceLock;
use std::time::Duration;

const PIE: Core = &PIE_CORE;
const DUALPI2: Core = &DUALPI2_CORE;

fn options(scenario: &str, aqm: &str, max: usize) -> SimRunOptions {
    SimRunOptions {
        scenario: scenario.into(),
        point: 0,
        aqm: aqm.into(),
        seed: 1,
        time_scale: 0.1,
        max: Some(max),
    }
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

/// Streams `arrivals` to a fresh Verilated board of `core` at `speed` times their pace, after writing
/// `params` (a 50 ms reply timeout, 5 ms of drain after the last arrival).
fn stream_on_sim(
    core: Core,
    params: &[(u8, u32)],
    arrivals: &[Arrival],
    speed: f64,
) -> StreamRecord {
    let mut c = Client::new(SimTransport::new(core).unwrap());
    c.timeout = Duration::from_millis(50);
    stream_paced(&mut c, params, arrivals, speed, Duration::from_millis(5)).unwrap()
}

#[test]
fn a_simulated_run_streamed_at_its_own_pace_matches_the_golden_model() {
    let run = simulate(&options("mix", "pie", 300), PIE).unwrap();
    assert_eq!(run.arrivals.len(), 300);
    assert!(run.total_arrivals > 300);
    assert!(run.arrivals.windows(2).all(|w| w[0].at_ns <= w[1].at_ns));
    // The board as the simulated PIE with its link at the scenario's rate (20 Mbit/s), the limit cut
    // down so that arrivals ten times faster than simulated overflow it.
    let mut params = run.register_writes();
    assert!(params.contains(&(addr::LINK_BYTE_TIME, 102_400)));
    params.push((addr::LIMIT, 20));
    let speed = 10.0;
    let rec = stream_on_sim(PIE, &params, &run.arrivals, speed);
    let s = check_stream(&rec, &run.descriptors()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.verdicts, 300);
    assert!(s.by_code[0] > 0 && s.by_code[3] > 0, "{s:?}");
    // Never offered before its (scaled) time, and not long after it.
    for (v, a) in rec.verdicts.iter().zip(&run.arrivals) {
        let due = (a.at_ns as f64 / speed) as u64;
        assert!(v.accepted_ns >= due, "{v:?} {a:?}");
        assert!(v.accepted_ns < due + 2_000_000, "{v:?} {a:?}");
    }
}

#[test]
fn a_bytemode_pie_run_matches_the_golden_model_on_the_board() {
    // The board carries the full PIE core: the drop probability scaled by the packet's length.
    let run = simulate(&options("mix", "pie:bytemode=on", 200), PIE).unwrap();
    let mut params = run.register_writes();
    assert!(params.contains(&(addr::BYTEMODE, 1)), "{params:?}");
    // A drop probability of 30 % from the start (77/256 of 2^56) and arrivals at twice the simulated
    // pace, so that the length-scaled probability drops packets once the burst allowance (150 ms from
    // the reset) is spent.
    params.push((addr::LIMIT, 30));
    params.push((addr::PROB_LO, 0));
    params.push((addr::PROB_HI, 0x004D_0000));
    let rec = stream_on_sim(PIE, &params, &run.arrivals, 2.0);
    let s = check_stream(&rec, &run.descriptors()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.verdicts, 200);
    assert!(
        s.by_code[0] > 0 && (s.by_code[1] + s.by_code[2]) > 0,
        "{s:?}"
    );
}

/// The last LIMIT write of a DualPI2 stream record: (time, address, value).
fn last_limit_write(rec: &mut StreamRecord) -> &mut (u64, u8, u32) {
    rec.writes
        .iter_mut()
        .rfind(|w| w.1 == dualpi2::regs::addr::LIMIT)
        .expect("a LIMIT write")
}

/// A DualPI2 run streamed once, for the tests that check it and tamper with it.
struct DualPi2Stream {
    run: SimRun,
    rec: StreamRecord,
}

/// The l4s scenario (a scalable, a Reno and a CUBIC flow at 40 Mbit/s) with the simulated DualPI2, its
/// first 300 arrivals streamed at 10 times the simulated pace to the DualPI2 line card.
fn dualpi2_stream() -> &'static DualPi2Stream {
    static STREAM: OnceLock<DualPi2Stream> = OnceLock::new();
    STREAM.get_or_init(|| {
        let run = simulate(&options("l4s", "dualpi2", 300), DUALPI2).unwrap();
        // The board as the simulated DualPI2, with the limit cut down so that arrivals ten times faster
        // than simulated overflow it, and p' held at 50 % (the first update is 16 ms after START): C
        // packets are dropped at dequeue with p'^2 = 25 %, L packets marked with k p' = 100 %.
        let mut params = run.register_writes();
        params.extend(parse_set(DUALPI2, &words("limit 24 prob 50%")).unwrap());
        let rec = stream_on_sim(DUALPI2, &params, &run.arrivals, 10.0);
        DualPi2Stream { run, rec }
    })
}

#[test]
fn a_simulated_dualpi2_run_streamed_at_its_own_pace_matches_the_golden_model() {
    let DualPi2Stream { run, rec } = dualpi2_stream();
    // The simulated DualPI2 ran with the core's limits, and the board gets exactly its parameters.
    assert_eq!(run.aqm, "dualpi2:limit=1024,queue_capacity=512");
    assert_eq!(
        run.writes,
        dualpi2::params::HARDWARE_PARAMS.register_writes(run.seed)
    );
    assert!(run.same_aqm);
    let writes = run.register_writes();
    assert!(writes.contains(&(dualpi2::regs::addr::K, 2)));
    assert!(writes.contains(&(
        dualpi2::regs::addr::LINK_BYTE_TIME,
        link_byte_time(40_000_000)
    )));
    let s = check_stream(rec, &run.descriptors()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((s.core, s.verdicts), (DUALPI2, 300));
    // Both queues, tail drops at enqueue, drops and marks at dequeue.
    assert!(s.to_l > 0 && s.to_l < 300, "{s:?}");
    assert!(s.by_code[3] > 0 && s.dequeue_drops > 0, "{s:?}");
    assert!(s.fates.marked > 0 && s.fates.sent > 0, "{s:?}");
}

#[test]
fn a_tampered_verdict_or_departure_is_reported_with_its_descriptor_and_field() {
    let DualPi2Stream { run, rec } = dualpi2_stream();
    let descs = run.descriptors();
    // A C verdict turned into an L one.
    let j = (100..)
        .find(|&j| rec.verdicts[j].queue == 0)
        .expect("a C verdict");
    let mut bad = rec.clone();
    bad.verdicts[j].queue = 1;
    let e = check_stream(&bad, &descs).unwrap_err();
    eprintln!("{e}");
    assert!(
        e.contains(&format!("descriptor {j} (tag {j}, "))
            && e.contains("its verdict: queue: board L, golden C")
            && e.contains("in all 1 of 300 verdicts and 0 of"),
        "{e}"
    );
    // A packet sent, reported as dropped at dequeue.
    let k = (rec.departures.len() / 2..)
        .find(|&k| !rec.departures[k].dropped)
        .expect("a departure that was sent");
    let mut bad = rec.clone();
    bad.departures[k].dropped = true;
    let e = check_stream(&bad, &descs).unwrap_err();
    eprintln!("{e}");
    let tag = rec.departures[k].tag;
    assert!(
        e.contains(&format!("descriptor {tag} (tag {tag}, "))
            && e.contains(&format!(
                "departure {k}: dropped at dequeue: board yes, golden no"
            ))
            && e.contains("in all 0 of 300 verdicts and 1 of"),
        "{e}"
    );
}

#[test]
fn a_tampered_sojourn_ecn_or_write_time_is_reported() {
    let DualPi2Stream { run, rec } = dualpi2_stream();
    let descs = run.descriptors();
    // A departure's sojourn 25 ns longer.
    let k = rec.departures.len() / 3;
    let mut bad = rec.clone();
    bad.departures[k].sojourn_ns += 25;
    let e = check_stream(&bad, &descs).unwrap_err();
    eprintln!("{e}");
    let s = rec.departures[k].sojourn_ns;
    assert!(
        e.contains(&format!(
            "departure {k}: sojourn: board {} ns, golden {s} ns",
            s + 25
        )) && e.contains("and 1 of"),
        "{e}"
    );
    // A departure's ECN changed.
    let mut bad = rec.clone();
    bad.departures[k].ecn ^= 1;
    let e = check_stream(&bad, &descs).unwrap_err();
    assert!(
        e.contains(&format!("departure {k}: ECN: board ")) && e.contains("and 1 of"),
        "{e}"
    );
    // The LIMIT write reported a cycle off the whole-cycle grid: the board's times are whole cycles.
    let mut bad = rec.clone();
    let w = last_limit_write(&mut bad);
    w.0 += 1;
    let t = w.0;
    let e = check_stream(&bad, &descs).unwrap_err();
    assert!(
        e.contains(&format!("time {t} ns is not a whole cycle")),
        "{e}"
    );
}

#[test]
fn a_corrupted_golden_parameter_is_reported_where_it_first_shows() {
    let DualPi2Stream { run, rec } = dualpi2_stream();
    // The golden model is told LIMIT 23 where the board took 24: it tail-drops an arrival the board
    // enqueued, and everything after may differ.
    let mut bad = rec.clone();
    let w = last_limit_write(&mut bad);
    assert_eq!(w.2, 24);
    w.2 = 23;
    let e = check_stream(&bad, &run.descriptors()).unwrap_err();
    eprintln!("{e}");
    assert!(
        e.contains("differ, first at cycle")
            && e.contains("its verdict: code: board 0 (enqueue), golden 3 (tail drop)"),
        "{e}"
    );
}

fn host(args: &[&str]) -> (bool, String, String) {
    aqm_testkit::run(env!("CARGO_BIN_EXE_aqm-host"), args)
}

/// `aqm-host --sim <before> sim-stream l4s <after>`, its first 150 arrivals at a tenth of the
/// simulated time streamed at 4 times their pace.
fn sim_stream_l4s(before: &[&str], after: &[&str]) -> (bool, String, String) {
    let short = ["--time-scale", "0.1", "--max", "150", "--speed", "4"];
    let args = [
        &["--sim"][..],
        before,
        &["sim-stream", "l4s"],
        after,
        &short,
    ]
    .concat();
    host(&args)
}

/// Asserts that `out` contains every one of `wants`, showing `out` if not.
fn assert_says(out: &str, wants: &[&str]) {
    for want in wants {
        assert!(out.contains(want), "{want:?} missing from:\n{out}");
    }
}

#[test]
fn the_command_streams_a_scenario_and_reports_the_comparison() {
    let trace = std::env::temp_dir().join(format!("aqm-host-sim-{}.trace", std::process::id()));
    let t = trace.display().to_string();
    let (ok, out, err) = sim_stream_l4s(
        &[],
        &[
            "--point",
            "1",
            "--aqm",
            "pie:ecn=on,target=10ms",
            "--save-trace",
            &t,
        ],
    );
    assert!(ok, "{err}");
    assert_says(
        &out,
        &[
            "simulated l4s rtt=50ms with pie:ecn=on,target=10ms",
            "every verdict and departure identical (150 verdicts",
        ],
    );
    // The saved trace is one `stream` reads.
    let text = std::fs::read_to_string(&trace).unwrap();
    assert_eq!(aqm_host::stream::parse_trace(&text).unwrap().len(), 150);
    let _ = std::fs::remove_file(&trace);
}

#[test]
fn the_command_serves_the_dualpi2_line_card_too() {
    let (ok, out, err) = sim_stream_l4s(&["--core", "dualpi2"], &[]);
    assert!(ok, "{err}");
    assert_says(
        &out,
        &[
            "simulated l4s rtt=20ms with dualpi2:limit=1024,queue_capacity=512",
            "the DualPI2 line card with the simulated AQM's parameters",
            "every verdict and departure identical (150 verdicts",
        ],
    );
}

#[test]
fn bad_input_is_a_clear_error() {
    for (args, want) in [
        (vec!["nosuch"], "unknown scenario"),
        (vec!["mix", "--point", "3"], "--point 3"),
        (vec!["mix", "--aqm", "pie:alpha=99"], "alpha"),
        (vec!["mix", "--speed", "0"], "--speed"),
        (vec!["mix", "--time-scale=-1"], "--time-scale"),
        (vec!["mix", "--max", "5", "--set", "limit 0"], "LIMIT"),
        (
            vec!["--core", "dualpi2", "l4s", "--aqm", "dualpi2:limit=5000"],
            "limit = 5000 is out of range: expected 1..=1024",
        ),
        (
            vec![
                "--core",
                "dualpi2",
                "l4s",
                "--aqm",
                "dualpi2:queue_capacity=100",
            ],
            "queue_capacity",
        ),
        (
            vec!["--core", "dualpi2", "l4s", "--set", "coupling_factor 0"],
            "K = 0",
        ),
        (
            vec!["--core", "codel", "mix"],
            "expected one of pie, dualpi2",
        ),
    ] {
        let mut a = vec!["--sim", "sim-stream"];
        a.extend(args.iter());
        let (ok, _, err) = host(&a);
        assert!(!ok, "{args:?}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
