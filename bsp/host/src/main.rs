//! `aqm-host`: the line cards' host tool. Every command starts with HELLO: the core's ID register says
//! which line card answers (PIE or DualPI2), and that picks the register map, the tc-like words, the
//! `show` format and the golden model.
//!
//! ```text
//! aqm-host [--port /dev/ttyUSB0 [--baud 1000000] | --sim] [--core pie|dualpi2] COMMAND
//!   --core pie|dualpi2          with --sim, the Verilated line card to run (default pie); with a port,
//!                               the core the board must carry
//!   hello                       what is on the other end
//!   set WORDS                   tc's options, as tc-pie(8) / tc-dualpi2(8) spell them:
//!                                 PIE: target 15ms tupdate 15ms alpha 2 beta 20 limit 1000 ecn bytemode ...
//!                                 DualPI2: target 15ms tupdate 16ms alpha 0.16 beta 3.2 coupling_factor 2
//!                                 step_thresh 1ms l4s_ect drop_on_overload limit 1024 classic_protection 10%
//!                                 max_rtt 100ms typical_rtt 15ms ...
//!                               (and the host's own: mtu, burst, link RATE|off, seed N, prob P%)
//!   show [--json]               counters like `tc -s qdisc show` (`tc -s -j qdisc show`)
//!   reset                       reset the core (parameters back to their defaults)
//!   read REG | write REG VALUE  one register, by name (TARGET_US) or address (0x10)
//!   stream TRACE [--set "..."] [--batch N] [--gap-us N] [--compare]
//!                               stream a descriptor trace (`len ecn` per line), print the verdicts,
//!                               and with --compare check them against the golden model
//!   sim-stream SCENARIO [--aqm NAME[:k=v,..]] [--seed N] [--point K] [--time-scale X] [--max N]
//!              [--speed X] [--set "..."] [--save-trace FILE]
//!                               run a network-simulator scenario (by default with the board's AQM, pie
//!                               or dualpi2), stream the descriptors that reached its bottleneck to the
//!                               board at the simulator's pace (the core set up as the simulated AQM,
//!                               DualPI2 within its hardware limits, its link model at the scenario's
//!                               rate), and check every verdict and departure against the golden model
//! ```

use aqm_golden::hw::{Verdict, VerdictBeat};
use aqm_golden::QueueId;
use aqm_host::board_core::{self, identify, Core};
use aqm_host::client::{Client, ClientError};
use aqm_host::sim_trace::{simulate, stream_paced, SimRunOptions};
use aqm_host::stream::{
    check_stream, fates, parse_trace, stream, Fates, Pacing, StreamRecord, MAX_GAP,
};
use aqm_host::tc::{format_json, format_show, parse_set, shown};
use aqm_host::transport::{SerialTransport, SimTransport, Transport};
use aqm_host::writes::{apply_all, check_writes};
use clap::builder::RangedU64ValueParser;
use clap::{Parser, Subcommand};
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "aqm-host",
    about = "Talk to an AQM line card (the PIE or the DualPI2 core) over its USB-UART"
)]
struct Cli {
    /// Serial port of the board.
    #[arg(long, default_value = "/dev/ttyUSB0")]
    port: String,
    /// UART rate of the bitstream, 300 to 12000000 baud.
    #[arg(long, default_value_t = 1_000_000,
          value_parser = clap::value_parser!(u32).range(300..=12_000_000))]
    baud: u32,
    /// Use a Verilated board top instead of a serial port.
    #[arg(long)]
    sim: bool,
    /// pie or dualpi2: with --sim, the line card to run (default pie); with a port, the core the board
    /// must carry (its HELLO tells).
    #[arg(long, global = true, value_parser = board_core::parse)]
    core: Option<Core>,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Board and core identification.
    Hello,
    /// Set parameters with tc's options for the board's core, as tc-pie(8) and tc-dualpi2(8) spell
    /// them (PIE: limit 1000 target 15ms tupdate 15ms alpha 2 beta 20 ecn|noecn bytemode|nobytemode;
    /// DualPI2: limit 1024 target 15ms tupdate 16ms alpha 0.16 beta 3.2 coupling_factor 2
    /// step_thresh 1ms min_qlen_step 0 l4s_ect|any_ect drop_on_overload|overflow classic_protection 10%
    /// max_rtt 100ms typical_rtt 15ms), and the host's own (mtu 1514, PIE's burst 150ms, link
    /// 20mbit|off, seed N, prob 5%). An option the hardware does not have is refused with the reason.
    Set {
        #[arg(allow_hyphen_values = true)]
        words: Vec<String>,
    },
    /// Counters and parameters, like `tc -s qdisc show`.
    Show {
        /// As `tc -s -j qdisc show` prints them.
        #[arg(long)]
        json: bool,
    },
    /// Reset the core and its parameters.
    Reset,
    /// Read a register by name or address.
    Read { reg: String },
    /// Write a register by name or address.
    Write { reg: String, value: String },
    /// Stream a descriptor trace and collect the verdicts.
    Stream {
        trace: String,
        /// Parameters to set after the reset, as tc-like words in one argument.
        #[arg(long, default_value = "")]
        set: String,
        /// Descriptors per INJECT frame (1..=32).
        #[arg(long, default_value_t = 32,
              value_parser = RangedU64ValueParser::<usize>::new().range(1..=aqm_protocol::MAX_INJECT as u64))]
        batch: usize,
        /// Board time between INJECT frames, us (0..=10000000, 10 s).
        #[arg(long, default_value_t = 0,
              value_parser = clap::value_parser!(u64).range(0..=MAX_GAP.as_micros() as u64))]
        gap_us: u64,
        /// Check every verdict and departure against the golden model.
        #[arg(long)]
        compare: bool,
    },
    /// Stream a network-simulator run's descriptor trace at the simulator's pace and check the board's
    /// verdicts and departures against the golden model.
    SimStream {
        /// A named scenario of the simulator (`aqm-netsim list`).
        scenario: String,
        /// The simulated AQM, NAME or NAME:key=value,... (default: the board's, pie or dualpi2); the
        /// board's AQM's parameters also go to the board (DualPI2's over its hardware defaults, and the
        /// simulated DualPI2 gets the hardware's limit and queue capacity).
        #[arg(long)]
        aqm: Option<String>,
        /// The simulator's seed (also seeds the core's generator, as the simulator seeds the AQM).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The sweep point of the scenario (0 without a sweep).
        #[arg(long, default_value_t = 0)]
        point: usize,
        /// Multiply the scenario's durations by this.
        #[arg(long, default_value_t = 1.0)]
        time_scale: f64,
        /// Stream only the first N arrivals (at least 1).
        #[arg(long, value_parser = RangedU64ValueParser::<usize>::new().range(1..))]
        max: Option<usize>,
        /// Board time runs this many times faster than simulated time (0.001 to 1000000).
        #[arg(long, default_value_t = 1.0)]
        speed: f64,
        /// More tc-like words, applied after the simulated AQM's parameters (e.g. "link off").
        #[arg(long, default_value = "")]
        set: String,
        /// Also write the trace (`len ecn` per line, as `stream` reads it) to this file.
        #[arg(long)]
        save_trace: Option<String>,
    },
}

fn reg_addr(core: Core, s: &str) -> Result<u8, String> {
    if let Some(d) = core.register_by_name(s) {
        return Ok(d.addr);
    }
    let v = match s.strip_prefix("0x") {
        Some(h) => u8::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    };
    v.ok_or_else(|| {
        format!(
            "{s:?}: expected a register name of the {} core (see its register map) or an address",
            core.title()
        )
    })
}

/// tc-like words as register writes, every one checked against the register table and the golden
/// model before any is sent.
fn parse_words(core: Core, words: &[String]) -> Result<Vec<(u8, u32)>, String> {
    let writes = parse_set(core, words)?;
    check_writes(core, &writes)?;
    Ok(writes)
}

fn split_words(set: &str) -> Vec<String> {
    set.split_whitespace().map(String::from).collect()
}

/// What became of the descriptors on the board, and the DualPI2 core's classification.
fn board_outcome(core: Core, rec: &StreamRecord, descs: &[(u16, u8)]) -> String {
    let f = Fates::tally(fates(&rec.verdicts, &rec.departures, descs));
    let mut s = format!("{f}; {} departures", rec.departures.len());
    // A core with an L queue (one that takes a verdict naming it) says how many went there.
    let l_queue = VerdictBeat {
        tag: 0,
        verdict: Verdict::Enqueue,
        queue: QueueId::L,
    };
    if core.admission(&l_queue).is_ok() {
        let l = rec.verdicts.iter().filter(|v| v.queue != 0).count();
        s.push_str(&format!(" ({l} of the descriptors classified L)"));
    }
    s
}

fn run<T: Transport>(c: &mut Client<T>, expected: Option<Core>, cmd: Cmd) -> Result<(), String> {
    let e = |e: ClientError| e.to_string();
    let info = c.hello().map_err(e)?;
    let core = identify(info.core_id, expected)?;
    let title = core.title();
    match cmd {
        Cmd::Hello => {
            println!(
                "core 0x{:08X} ({}, {title}), {} ns per cycle ({} MHz), {} cycles per UART bit, {} descriptors, \
                 verdict latency {} cycles, protocol {}",
                info.core_id,
                String::from_utf8_lossy(&info.core_id.to_be_bytes()),
                info.ns_per_cycle,
                1000 / info.ns_per_cycle.max(1),
                info.cycles_per_bit,
                info.capacity,
                info.verdict_latency,
                info.version
            );
        }
        Cmd::Set { words } => {
            let writes = parse_words(core, &words)?;
            apply_all(c, core, &writes)?;
        }
        Cmd::Show { json } => {
            let mut v = vec![];
            for a in shown(core) {
                v.push(c.read(a).map_err(e)?);
            }
            if json {
                print!("{}", format_json(core, &v));
            } else {
                print!("{}", format_show(core, &v));
            }
        }
        Cmd::Reset => c.start().map_err(e)?,
        Cmd::Read { reg } => {
            let a = reg_addr(core, &reg)?;
            println!("0x{:08X}", c.read(a).map_err(e)?);
        }
        Cmd::Write { reg, value } => {
            let a = reg_addr(core, &reg)?;
            let v = match value.strip_prefix("0x") {
                Some(h) => u32::from_str_radix(h, 16),
                None => value.parse(),
            }
            .map_err(|_| format!("{value:?}: expected a 32-bit decimal or 0x-hex number"))?;
            c.write(a, v).map_err(e)?;
        }
        Cmd::Stream {
            trace,
            set,
            batch,
            gap_us,
            compare,
        } => {
            let text = std::fs::read_to_string(&trace)
                .map_err(|err| format!("cannot read {trace:?}: {err}"))?;
            let descs = parse_trace(&text).map_err(|m| format!("{trace:?}: {m}"))?;
            let params =
                parse_words(core, &split_words(&set)).map_err(|m| format!("--set: {m}"))?;
            let pacing = Pacing {
                batch,
                gap: Duration::from_micros(gap_us),
                ..Pacing::default()
            };
            c.timeout = Duration::from_secs(1);
            let rec = stream(c, &params, &descs, pacing).map_err(e)?;
            // The rate in the board's time: descriptors over the time to the last acceptance.
            let rate = match rec.verdicts.last() {
                Some(v) if v.accepted_ns > 0 => format!(
                    "{:.0} descriptors/s of board time",
                    rec.verdicts.len() as f64 / (v.accepted_ns as f64 / 1e9)
                ),
                _ => "no rate: nothing accepted after START".into(),
            };
            println!(
                "{} descriptors through the {title} core: {} ({rate})",
                rec.verdicts.len(),
                board_outcome(core, &rec, &descs),
            );
            if compare {
                let s = check_stream(&rec, &descs)?;
                println!(
                    "golden model: every verdict and departure identical ({} cycles replayed)",
                    s.cycles
                );
            }
        }
        Cmd::SimStream {
            scenario,
            aqm,
            seed,
            point,
            time_scale,
            max,
            speed,
            set,
            save_trace,
        } => {
            if !(speed.is_finite() && (1e-3..=1e6).contains(&speed)) {
                return Err(format!(
                    "--speed {speed}: must be more than 0, from 0.001 to 1000000"
                ));
            }
            let run = simulate(
                &SimRunOptions {
                    scenario,
                    point,
                    aqm: aqm.unwrap_or_else(|| core.name().into()),
                    seed,
                    time_scale,
                    max,
                },
                core,
            )?;
            if run.arrivals.is_empty() {
                return Err(format!("{}: no packet reached the bottleneck", run.label));
            }
            if let Some(path) = &save_trace {
                std::fs::write(path, run.trace_text())
                    .map_err(|err| format!("--save-trace {path:?}: cannot write: {err}"))?;
            }
            let mut params = run.register_writes();
            params
                .extend(parse_words(core, &split_words(&set)).map_err(|m| format!("--set: {m}"))?);
            check_writes(core, &params)?;
            let span_ns = run.arrivals.last().map_or(0, |a| a.at_ns);
            println!(
                "simulated {} with {} (seed {seed}): {} arrivals in {:.3} s; streaming {} of them \
                 ({:.3} s simulated) at {speed}x, link {} Mbit/s",
                run.label,
                run.aqm,
                run.total_arrivals,
                run.duration_ns as f64 * 1e-9,
                run.arrivals.len(),
                span_ns as f64 * 1e-9,
                run.rate_bps as f64 / 1e6
            );
            println!(
                "board:     the {title} line card with {}",
                if run.same_aqm {
                    "the simulated AQM's parameters"
                } else {
                    "its default parameters (the simulated AQM is another)"
                }
            );
            println!(
                "simulator: {}",
                Fates::tally(run.arrivals.iter().map(|a| a.sim_fate))
            );
            c.timeout = Duration::from_secs(1);
            let rec = stream_paced(c, &params, &run.arrivals, speed, Duration::from_millis(50))
                .map_err(e)?;
            let descs = run.descriptors();
            println!("board:     {}", board_outcome(core, &rec, &descs));
            let s = check_stream(&rec, &descs)?;
            println!(
                "golden model: every verdict and departure identical ({} verdicts, {} departures, {} cycles \
                 replayed)",
                s.verdicts, s.departures, s.cycles
            );
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = if cli.sim {
        let core = cli.core.unwrap_or(&aqm_golden::pie::kind::PIE_CORE);
        match SimTransport::new(core) {
            Ok(t) => run(&mut Client::new(t), cli.core, cli.cmd),
            Err(err) => Err(err.to_string()),
        }
    } else {
        match SerialTransport::open(&cli.port, cli.baud) {
            Ok(t) => run(&mut Client::new(t), cli.core, cli.cmd),
            Err(err) => Err(err.to_string()),
        }
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(m) => {
            eprintln!("aqm-host: {}", aqm_golden::text::escape_controls(&m));
            ExitCode::FAILURE
        }
    }
}
