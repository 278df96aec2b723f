//! The binary: clear errors on bad input (never a panic), and the files it promises.

fn netsim(args: &[&str]) -> (bool, String, String) {
    aqm_testkit::run(env!("CARGO_BIN_EXE_aqm-netsim"), args)
}

#[test]
fn list_names_every_scenario_and_aqm() {
    let (ok, out, _) = netsim(&["list"]);
    assert!(ok);
    for name in aqm_netsim::scenario::NAMED {
        assert!(out.contains(name), "{name}");
    }
    for name in [
        "taildrop", "pfifo", "red", "ared", "codel", "fq_codel", "pie", "dualpi2",
    ] {
        assert!(out.contains(name), "{name}");
    }
}

#[test]
fn run_writes_table_csv_json_and_plots() {
    let dir = std::env::temp_dir().join(format!("aqm-netsim-cli-{}", std::process::id()));
    let d = dir.display().to_string();
    let (ok, out, err) = netsim(&[
        "run",
        "mix",
        "--aqm",
        "taildrop,codel:target=5ms,interval=100ms",
        "--seeds",
        "1,2",
        "--time-scale",
        "0.05",
        "--out",
        &d,
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("codel:target=5ms,interval=100ms"), "{out}");
    for f in [
        "summary.csv",
        "runs.csv",
        "results.json",
        "cdf_probe.svg",
        "cdf_probe.png",
        "cdf_long.png",
    ] {
        assert!(dir.join(f).exists(), "{f}");
    }
    let runs = std::fs::read_to_string(dir.join("runs.csv")).unwrap();
    assert_eq!(runs.lines().count(), 1 + 2 * 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn custom_scenarios_come_from_toml_and_errors_name_file_and_key() {
    let dir = std::env::temp_dir().join(format!("aqm-netsim-toml-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.toml");
    std::fs::write(
        &good,
        "name = \"tiny\"\nrate = \"10Mbit\"\nrtt = \"20ms\"\nduration = \"3s\"\nwarmup = \"1s\"\nseeds = [4]\naqm = [\"codel:target=2ms\"]\n\n[[flows]]\nkind = \"cubic\"\ncount = 2\n\n[[flows]]\nkind = \"probe\"\ninterval = \"20ms\"\nsize = 200\n",
    )
    .unwrap();
    let (ok, out, err) = netsim(&["run", "--config", &good.display().to_string()]);
    assert!(ok, "{err}");
    assert!(
        out.contains("tiny") && out.contains("codel:target=2ms"),
        "{out}"
    );

    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "name = \"x\"\nrate = \"10 furlongs\"\nrtt = \"20ms\"\nduration = \"3s\"\nwarmup = \"1s\"\n[[flows]]\nkind = \"reno\"\n").unwrap();
    let (ok, _, err) = netsim(&["run", "--config", &bad.display().to_string()]);
    assert!(!ok);
    assert!(
        err.contains("bad.toml") && err.contains("rate") && err.contains("line 2"),
        "{err}"
    );
    assert!(!err.contains("panicked"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_command_line_input_is_a_clear_error() {
    for (args, want) in [
        (vec!["run", "nosuch"], "unknown scenario"),
        (vec!["run", "mix", "--aqm", "nosuch"], "unknown AQM"),
        (vec!["run", "mix", "--aqm", "codel:target=fast"], "target"),
        (
            vec!["run", "mix", "--aqm", "codel:bogus=1"],
            "unknown parameter",
        ),
        (vec!["run", "mix", "--time-scale", "0"], "time-scale"),
        (
            vec!["run", "--config", "/nonexistent/x.toml"],
            "/nonexistent/x.toml",
        ),
    ] {
        let (ok, _, err) = netsim(&args);
        assert!(!ok, "{args:?}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[cfg(feature = "hw")]
#[test]
fn the_hardware_rows_run_and_report_their_cost() {
    let (ok, out, _) = netsim(&["list"]);
    assert!(ok);
    for hw in ["pie (hw)", "dualpi2 (hw)"] {
        assert!(
            out.lines()
                .any(|l| l.contains(hw) && !l.contains("not available")),
            "{out}"
        );
    }
    let dir = std::env::temp_dir().join(format!("aqm-netsim-hw-{}", std::process::id()));
    let d = dir.display().to_string();
    // The l4s list names the hardware rows.
    let (ok, out, err) = netsim(&[
        "run",
        "l4s",
        "--seeds",
        "1",
        "--time-scale",
        "0.02",
        "--no-plots",
        "--out",
        &d,
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("cycles_per_packet"), "{out}");
    let cost = std::fs::read_to_string(dir.join("cost.csv")).unwrap();
    for hw in ["pie (hw)", "dualpi2 (hw)"] {
        // Two points, then the cost row.
        assert_eq!(out.lines().filter(|l| l.contains(hw)).count(), 3, "{out}");
        let rows: Vec<&str> = cost.lines().filter(|l| l.contains(hw)).collect();
        assert_eq!(rows.len(), 2, "{cost}");
        assert!(
            rows.iter().all(|l| !l.ends_with(',')),
            "cycles missing: {cost}"
        );
    }
    // Parameters out of the core's range are clear errors, not panics.
    for (aqm, want) in [
        ("pie (hw):limit=5000", "limit"),
        ("dualpi2 (hw):limit=5000", "limit"),
        ("dualpi2 (hw):queue_capacity=100", "queue_capacity"),
    ] {
        let (ok, _, err) = netsim(&["run", "mix", "--aqm", aqm]);
        assert!(
            !ok && err.contains(want) && !err.contains("panicked"),
            "{err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
