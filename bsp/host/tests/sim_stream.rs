//! A network-simulator run's descriptor trace through the Verilated board top, end to end: simulated,
//! streamed over the UART at the simulator's pace, and checked against the golden model bit for bit.

use aqm_golden::pie::regs::addr;
use aqm_host::client::Client;
use aqm_host::sim_trace::{simulate, stream_paced, SimRunOptions};
use aqm_host::stream::check_stream;
use aqm_host::transport::SimTransport;
use std::process::Command;
use std::time::Duration;

fn options(scenario: &str, max: usize) -> SimRunOptions {
    SimRunOptions {
        scenario: scenario.into(),
        point: 0,
        aqm: "pie".into(),
        seed: 1,
        time_scale: 0.1,
        max: Some(max),
    }
}

#[test]
fn a_simulated_run_streamed_at_its_own_pace_matches_the_golden_model() {
    let run = simulate(&options("mix", 300)).unwrap();
    assert_eq!(run.arrivals.len(), 300);
    assert!(run.total_arrivals > 300);
    assert!(run.arrivals.windows(2).all(|w| w[0].at_ns <= w[1].at_ns));
    // The board as the simulated PIE with its link at the scenario's rate (20 Mbit/s), the limit cut
    // down so that arrivals ten times faster than simulated overflow it.
    let mut params = run.register_writes();
    assert!(params.contains(&(addr::LINK_BYTE_TIME, 102_400)));
    params.push((addr::LIMIT, 20));
    let speed = 10.0;
    let mut c = Client::new(SimTransport::new(
        aqm_verilated::BOARD_SIM_CPB,
        aqm_verilated::BOARD_SIM_NSPC,
    ));
    c.timeout = Duration::from_millis(50);
    let rec = stream_paced(
        &mut c,
        &params,
        &run.arrivals,
        speed,
        Duration::from_millis(5),
    )
    .unwrap();
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

fn host(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_aqm-host"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_command_streams_a_scenario_and_reports_the_comparison() {
    let trace = std::env::temp_dir().join(format!("aqm-host-sim-{}.trace", std::process::id()));
    let t = trace.display().to_string();
    let (ok, out, err) = host(&[
        "--sim",
        "sim-stream",
        "l4s",
        "--point",
        "1",
        "--aqm",
        "pie:ecn=on,target=10ms",
        "--time-scale",
        "0.1",
        "--max",
        "150",
        "--speed",
        "4",
        "--save-trace",
        &t,
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("simulated l4s rtt=50ms with pie:ecn=on,target=10ms"),
        "{out}"
    );
    assert!(
        out.contains("every verdict and departure identical (150 verdicts"),
        "{out}"
    );
    // The saved trace is one `stream` reads.
    let text = std::fs::read_to_string(&trace).unwrap();
    assert_eq!(aqm_host::stream::parse_trace(&text).unwrap().len(), 150);
    let _ = std::fs::remove_file(&trace);
}

#[test]
fn bad_input_is_a_clear_error() {
    for (args, want) in [
        (vec!["nosuch"], "unknown scenario"),
        (vec!["mix", "--point", "3"], "--point 3"),
        (vec!["mix", "--aqm", "pie:bytemode=on"], "bytemode"),
        (vec!["mix", "--aqm", "pie:alpha=99"], "alpha"),
        (vec!["mix", "--speed", "0"], "--speed"),
        (vec!["mix", "--time-scale=-1"], "--time-scale"),
        (vec!["mix", "--max", "5", "--set", "limit 0"], "LIMIT"),
    ] {
        let mut a = vec!["--sim", "sim-stream"];
        a.extend(args.iter());
        let (ok, _, err) = host(&a);
        assert!(!ok, "{args:?}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
