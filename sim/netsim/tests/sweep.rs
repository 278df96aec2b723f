//! plan / exec / merge against `run`, through the binary as a batch scheduler would drive it: the shards
//! as separate processes in random order (as a Slurm job array or GNU parallel starts them), one killed
//! mid-shard and run again, then merge, compared byte for byte with `run`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime};

const BIN: &str = env!("CARGO_BIN_EXE_aqm-netsim");

/// The grid: rate-sweep (5 points) x 3 AQMs x 2 seeds, 30 runs, each 3 s of simulated time.
const GRID: [&str; 7] = [
    "rate-sweep",
    "--aqm",
    "pie,dualpi2,fq_codel",
    "--seeds",
    "1,2",
    "--time-scale",
    "0.05",
];
const RUNS: usize = 30;

fn netsim(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn ok(args: &[&str]) -> (String, String) {
    let out = netsim(args);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(out.status.success(), "{args:?} failed:\n{stderr}");
    (stdout, stderr)
}

fn spawn(args: &[String]) -> Child {
    Command::new(BIN)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("aqm-netsim-sweep-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// A small generator for the order of the shards; its seed is printed so that a failure can be
/// repeated (AQM_SWEEP_TEST_SEED=...).
struct Order(u64);

impl Order {
    fn new() -> Order {
        let seed = std::env::var("AQM_SWEEP_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                SystemTime::now()
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
            });
        eprintln!("shard order seed: AQM_SWEEP_TEST_SEED={seed}");
        Order(seed | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
    }
}

/// The files `run` and `merge` write, but for cost.csv (wall time, not a result): name -> bytes.
fn outputs(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().is_some_and(|n| n != "cost.csv"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect()
}

/// The result tables of stdout: everything before the (wall-time) cost table.
fn tables(stdout: &str) -> &str {
    stdout.split("cost of the runs").next().unwrap()
}

fn manifest_ids(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("manifest.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["id"].as_str().unwrap().to_string()
        })
        .collect()
}

/// Result files in a plan's results folder (not the temporary ones): name -> (bytes, modified time).
fn results(dir: &Path) -> BTreeMap<String, (Vec<u8>, SystemTime)> {
    std::fs::read_dir(dir.join("results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| {
            let meta = std::fs::metadata(&p).unwrap();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                (std::fs::read(&p).unwrap(), meta.modified().unwrap()),
            )
        })
        .collect()
}

fn exec_args(dir: &Path, shard: usize, n: usize) -> Vec<String> {
    vec![
        "exec".into(),
        dir.display().to_string(),
        "--shard".into(),
        format!("{shard}/{n}"),
        "--jobs".into(),
        "1".into(),
    ]
}

fn wait_ok(child: Child, what: &str) -> String {
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{what} failed:\n{err}");
    err
}

/// Kills shard `k` of `n` once it has written its first result, before it has written them all; runs
/// it again and checks that the finished runs were kept as they were and only the rest were run.
fn kill_and_resume(dir: &Path, k: usize, n: usize) {
    let mine = (0..RUNS).filter(|i| i % n == k).count();
    let mut child = spawn(&exec_args(dir, k, n));
    let start = Instant::now();
    loop {
        if !results(dir).is_empty() || start.elapsed() > Duration::from_secs(120) {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    let _ = child.wait();
    let before = results(dir);
    eprintln!(
        "shard {k}/{n} killed after {} of its {mine} runs",
        before.len()
    );
    assert!(!before.is_empty(), "the shard wrote nothing in 120 s");
    assert!(
        before.len() < mine,
        "shard {k}/{n} finished all {mine} runs before it was killed; nothing to resume"
    );
    let err = wait_ok(spawn(&exec_args(dir, k, n)), "the resumed shard");
    assert!(
        err.contains(&format!("{} already done", before.len())),
        "{err}"
    );
    let after = results(dir);
    for (name, (bytes, modified)) in &before {
        let (b, m) = &after[name];
        assert!(b == bytes && m == modified, "{name} was redone");
    }
}

#[test]
fn plan_exec_merge_by_any_shards_is_byte_identical_to_run() {
    let reference = scratch("run");
    let r = reference.display().to_string();
    let mut args = vec!["run"];
    args.extend(GRID);
    args.extend(["--out", &r]);
    let (run_out, _) = ok(&args);
    let want = outputs(&reference);
    assert!(want.contains_key("summary.csv") && want.contains_key("results.json"));
    let mut order = Order::new();

    for n in [1usize, 3, 7] {
        let dir = scratch(&format!("plan{n}"));
        let d = dir.display().to_string();
        let mut args = vec!["plan"];
        args.extend(GRID);
        args.extend(["--out", &d]);
        if n != 1 {
            args.push("--no-calibration");
        }
        let (plan_out, _) = ok(&args);
        assert!(plan_out.starts_with(&format!("{RUNS} runs (5 points x 3 AQMs x 2 seeds)")));
        if n == 1 {
            assert!(plan_out.contains("estimated wall time"), "{plan_out}");
        }
        let ids = manifest_ids(&dir);
        assert_eq!(ids.len(), RUNS);

        // Before any exec, merge names every run.
        let out = netsim(&["merge", &d]);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("{RUNS} of the {RUNS} runs have no result")));
        for id in &ids {
            assert!(err.contains(&format!("missing run {id}")), "{id}: {err}");
        }

        let mut shards: Vec<usize> = (0..n).collect();
        order.shuffle(&mut shards);
        eprintln!("{n} shards in the order {shards:?}");
        match n {
            1 => {
                // One shard, killed half-way and resumed.
                kill_and_resume(&dir, 0, 1);
            }
            3 => {
                // The first shard killed and resumed, the other two at the same time.
                kill_and_resume(&dir, shards[0], 3);
                // One shard done: merge names exactly the other two shards' runs.
                let out = netsim(&["merge", &d]);
                assert!(!out.status.success());
                let err = String::from_utf8_lossy(&out.stderr);
                assert!(
                    err.contains(&format!("20 of the {RUNS} runs have no result")),
                    "{err}"
                );
                for (i, id) in ids.iter().enumerate() {
                    let named = err.contains(&format!("missing run {id}"));
                    assert_eq!(named, i % 3 != shards[0], "{id}: {err}");
                }
                let children: Vec<Child> = shards[1..]
                    .iter()
                    .map(|&k| spawn(&exec_args(&dir, k, n)))
                    .collect();
                for c in children {
                    wait_ok(c, "a shard");
                }
            }
            _ => {
                // One run by id first, then every shard, two at a time, in random order.
                ok(&["exec", &d, "--run", &ids[4], "--jobs", "1"]);
                for pair in shards.chunks(2) {
                    let children: Vec<Child> = pair
                        .iter()
                        .map(|&k| spawn(&exec_args(&dir, k, n)))
                        .collect();
                    for c in children {
                        wait_ok(c, "a shard");
                    }
                }
                // Everything is done: a shard run again does nothing.
                let err = wait_ok(spawn(&exec_args(&dir, 4 % n, n)), "a finished shard");
                assert!(err.contains("0 to run"), "{err}");
            }
        }
        assert_eq!(results(&dir).len(), RUNS);

        let merged = dir.join("merged");
        let m = merged.display().to_string();
        let (merge_out, _) = ok(&["merge", &d, "--out", &m]);
        assert_eq!(tables(&merge_out), tables(&run_out), "{n} shards");
        let got = outputs(&merged);
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>()
        );
        for (name, bytes) in &want {
            assert!(got[name] == *bytes, "{name} differs with {n} shards");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    let _ = std::fs::remove_dir_all(&reference);
}

#[test]
fn parameter_sweeps_plan_one_variant_per_value_and_merge_as_run_does() {
    let grid = [
        "mix",
        "--aqm",
        "codel",
        "--sweep",
        "codel.target=1ms,5ms,20ms",
        "--seeds",
        "1",
        "--time-scale",
        "0.02",
    ];
    let reference = scratch("sweep-run");
    let r = reference.display().to_string();
    let mut args = vec!["run"];
    args.extend(grid);
    args.extend(["--out", &r, "--no-plots"]);
    let (run_out, _) = ok(&args);
    for t in ["1ms", "5ms", "20ms"] {
        assert!(run_out.contains(&format!("codel:target={t}")), "{run_out}");
    }
    let dir = scratch("sweep-plan");
    let d = dir.display().to_string();
    let mut args = vec!["plan"];
    args.extend(grid);
    args.extend(["--out", &d, "--no-calibration"]);
    let (plan_out, _) = ok(&args);
    assert!(
        plan_out.starts_with("3 runs (1 points x 3 AQMs x 1 seeds)"),
        "{plan_out}"
    );
    // Planning the same grid again keeps the plan; a different grid is refused.
    ok(&args);
    let out = netsim(&["plan", "mix", "--aqm", "pie", "--out", &d]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("different plan"));

    ok(&["exec", &d]);
    let merged = dir.join("merged");
    let m = merged.display().to_string();
    let (merge_out, _) = ok(&["merge", &d, "--out", &m, "--no-plots"]);
    assert_eq!(tables(&merge_out), tables(&run_out));
    assert_eq!(outputs(&merged), outputs(&reference));

    // The same sweep from a scenario file.
    let file = dir.join("mix.toml");
    let (toml, _) = ok(&["show", "mix"]);
    std::fs::write(
        &file,
        format!("{toml}\n[aqm_sweep.codel]\ntarget = [\"1ms\", \"5ms\", \"20ms\"]\n"),
    )
    .unwrap();
    let f = file.display().to_string();
    let (file_out, _) = ok(&[
        "run",
        "--config",
        &f,
        "--aqm",
        "codel",
        "--seeds",
        "1",
        "--time-scale",
        "0.02",
    ]);
    assert_eq!(
        tables(&file_out).lines().skip(1).collect::<Vec<_>>(),
        tables(&run_out).lines().skip(1).collect::<Vec<_>>()
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&reference);
}

#[test]
fn bad_shards_and_runs_and_dirs_are_clear_errors() {
    let dir = scratch("bad");
    let d = dir.display().to_string();
    let err = |args: &[&str]| {
        let out = netsim(args);
        assert!(!out.status.success(), "{args:?}");
        let e = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!e.contains("panicked"), "{e}");
        e
    };
    assert!(err(&["exec", &d, "--shard", "0/2"]).contains("aqm-netsim plan"));
    assert!(err(&["merge", &d]).contains("aqm-netsim plan"));
    ok(&[
        "plan",
        "mix",
        "--aqm",
        "codel",
        "--seeds",
        "1",
        "--out",
        &d,
        "--no-calibration",
    ]);
    assert!(err(&["exec", &d, "--shard", "2/2"]).contains("from 0 to 1"));
    assert!(err(&["exec", &d, "--shard", "1/0"]).contains("at least 1"));
    assert!(err(&["exec", &d, "--shard", "x"]).contains("K/N"));
    assert!(err(&["exec", &d, "--run", "nosuch"]).contains("no such run"));
    assert!(err(&[
        "plan",
        "mix",
        "--aqm",
        "codel",
        "--sweep",
        "pie.alpha=1",
        "--out",
        &d
    ])
    .contains("not one of the AQMs"));
    // A manifest that does not match its scenario is refused.
    let m = dir.join("manifest.jsonl");
    let text = std::fs::read_to_string(&m).unwrap();
    std::fs::write(&m, text.replace("\"seed\":1", "\"seed\":2")).unwrap();
    assert!(err(&["exec", &d]).contains("line 1"));
    let _ = std::fs::remove_dir_all(&dir);
}
