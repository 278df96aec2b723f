//! Bad input, tried as a new user would: every number is range-checked where it enters, every output
//! path before a long run, nothing the user wrote reaches the terminal raw; and what every run checks
//! (packet conservation) is shown, in one line and in runs.csv columns that add up.

use std::time::{Duration, Instant};

fn netsim(args: &[&str]) -> (bool, String, String) {
    aqm_testkit::run(env!("CARGO_BIN_EXE_aqm-netsim"), args)
}

fn temp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("aqm-netsim-bad-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn refused(args: &[&str], want: &[&str]) {
    let (ok, out, err) = netsim(args);
    assert!(!ok, "{args:?}: {out}");
    for w in want {
        assert!(err.contains(w), "{args:?}: want {w:?} in {err}");
    }
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

#[test]
fn jobs_out_of_range_is_an_error_naming_the_flag_and_the_range() {
    let t = Instant::now();
    refused(
        &["run", "single", "--jobs", "100000"],
        &["--jobs 100000: expected 1..=", "per core"],
    );
    refused(
        &["run", "single", "--jobs", "0"],
        &["--jobs 0: expected 1..="],
    );
    assert!(t.elapsed() < Duration::from_secs(10));
}

#[test]
fn an_out_dir_that_cannot_be_written_is_refused_before_simulating() {
    let d = temp("out");
    let file = d.join("a-file");
    std::fs::write(&file, "").unwrap();
    let out = file.join("results");
    let o = out.display().to_string();
    let t = Instant::now();
    // rate-sweep at full length takes far longer than the check.
    let (ok, stdout, err) = netsim(&["run", "rate-sweep", "--aqm", "codel", "--out", &o]);
    assert!(
        !ok && err.contains("--out") && err.contains("cannot create it"),
        "{err}"
    );
    assert!(stdout.is_empty(), "simulated before the check: {stdout}");
    assert!(t.elapsed() < Duration::from_secs(10));
    refused(
        &["plan", "mix", "--out", &o],
        &["--out", "cannot create it"],
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn every_value_of_an_aqm_sweep_is_checked_before_any_run() {
    refused(
        &["run", "mix", "--aqm", "pie", "--sweep", "pie.alpha=2,99"],
        &["pie", "alpha", "\"99\"", "0..=32"],
    );
    refused(
        &[
            "run",
            "mix",
            "--aqm",
            "codel",
            "--sweep",
            "codel.target=1ms,0ms",
        ],
        &["target", "0ms", "more than 0"],
    );
    refused(
        &["run", "mix", "--aqm", "red", "--sweep", "red.w_q=0.002,0"],
        &["w_q", "more than 0"],
    );
}

#[test]
fn degenerate_scenario_parameters_are_errors_naming_file_and_key() {
    let d = temp("toml");
    let base =
        "name = \"t\"\nrate = \"10Mbit\"\nrtt = \"20ms\"\nduration = \"3s\"\nwarmup = \"1s\"\n";
    for (extra, want) in [
        ("[[flows]]\nkind = \"reno\"\ncount = 0\n", "flows[0].count"),
        (
            "[[flows]]\nkind = \"reno\"\n[sweep]\nrtt = [\"20ms\", \"0ms\"]\n",
            "sweep.rtt",
        ),
        (
            "[[flows]]\nkind = \"reno\"\n[sweep]\nduration = [\"0s\"]\n",
            "sweep.duration",
        ),
        (
            "[[flows]]\nkind = \"reno\"\n[sweep]\nflows = [2, 0]\n",
            "flows",
        ),
        (
            "[[flows]]\nkind = \"short\"\nrate = 0.0\npackets = 10\n",
            "flows[0].rate",
        ),
        ("[[flows]]\nkind = \"reno\"\n[sweep]\nrate = []\n", "empty"),
    ] {
        let f = d.join("s.toml");
        std::fs::write(&f, format!("{base}{extra}")).unwrap();
        refused(&["run", "--config", &f.display().to_string()], &[want]);
    }
    let f = d.join("zero.toml");
    std::fs::write(
        &f,
        base.replace("\"3s\"", "\"0s\"") + "[[flows]]\nkind = \"reno\"\n",
    )
    .unwrap();
    refused(
        &["run", "--config", &f.display().to_string()],
        &["duration"],
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn nothing_the_user_wrote_reaches_the_terminal_raw() {
    let (ok, _, err) = netsim(&["run", "\u{1b}[2Jmix"]);
    assert!(!ok);
    assert!(!err.contains('\u{1b}'), "{err:?}");
    assert!(err.contains("unknown scenario"), "{err}");
    let (ok, _, err) = netsim(&["run", "mix", "--sweep", "codel.target=1ms,\u{7}"]);
    assert!(!ok && !err.contains('\u{7}'), "{err:?}");
}

#[test]
fn conservation_is_printed_with_each_run_and_the_runs_csv_columns_add_up() {
    let d = temp("cons");
    let o = d.display().to_string();
    let (ok, out, err) = netsim(&[
        "run",
        "mix",
        "--aqm",
        "taildrop,codel",
        "--seeds",
        "1,2",
        "--time-scale",
        "0.05",
        "--no-plots",
        "--per-seed",
        "--out",
        &o,
    ]);
    assert!(ok, "{err}");
    let line = out
        .lines()
        .find(|l| l.starts_with("packet conservation"))
        .unwrap_or_else(|| panic!("no conservation line in {out}"));
    assert!(line.contains("4 of 4 runs balanced: generated "), "{line}");
    // One line per run with --per-seed.
    assert_eq!(
        out.lines()
            .filter(|l| l.contains(", seed ") && l.contains(" = delivered "))
            .count(),
        4,
        "{out}"
    );

    let csv = std::fs::read_to_string(d.join("runs.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| {
        header
            .iter()
            .position(|h| *h == n)
            .unwrap_or_else(|| panic!("{n}"))
    };
    let [_events, g, parts @ ..] = aqm_netsim::output::ACCOUNTING_COLUMNS.map(col);
    // The accounting is the last columns, after everything that was there before.
    assert_eq!(header.last(), Some(&"in_transit"));
    let mut total = 0;
    for l in lines {
        let v: Vec<&str> = l.split(',').collect();
        let n = |k: usize| v[k].parse::<u64>().unwrap();
        assert_eq!(n(g), parts.iter().map(|&k| n(k)).sum::<u64>(), "{l}");
        assert!(n(g) > 0);
        total += n(g);
    }
    assert!(
        line.contains(&format!("generated {total} = delivered ")),
        "{line}"
    );
    let _ = std::fs::remove_dir_all(&d);
}
