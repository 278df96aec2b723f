//! `aqm-host`: the line card's host tool.
//!
//! ```text
//! aqm-host [--port /dev/ttyUSB0 [--baud 1000000] | --sim] COMMAND
//!   hello                       what is on the other end
//!   set target 15ms tupdate 15ms alpha 2 beta 20 limit 1000 ecn link 20mbit ...
//!   show                        counters like `tc -s qdisc show`
//!   reset                       reset the core (parameters back to their defaults)
//!   read REG | write REG VALUE  one register, by name (TARGET_US) or address (0x10)
//!   stream TRACE [--set "..."] [--batch N] [--gap-us N] [--compare]
//!                               stream a descriptor trace (`len ecn` per line), print the verdicts,
//!                               and with --compare check them against the golden model
//!   sim-stream SCENARIO [--aqm pie[:k=v,..]] [--seed N] [--point K] [--time-scale X] [--max N]
//!              [--speed X] [--set "..."] [--save-trace FILE]
//!                               run a network-simulator scenario, stream the descriptors that reached
//!                               its bottleneck to the board at the simulator's pace (the core set up as
//!                               the simulated PIE, its link model at the scenario's rate), and check
//!                               every verdict and departure against the golden model
//! ```

use aqm_host::client::{Client, ClientError};
use aqm_host::sim_trace::{simulate, stream_paced, SimRunOptions};
use aqm_host::stream::{check_stream, parse_trace, stream, Pacing};
use aqm_host::tc::{format_show, parse_set, SHOWN};
use aqm_host::transport::{SerialTransport, SimTransport, Transport};
use clap::{Parser, Subcommand};
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "aqm-host",
    about = "Talk to the AQM line card over its USB-UART"
)]
struct Cli {
    /// Serial port of the board.
    #[arg(long, default_value = "/dev/ttyUSB0")]
    port: String,
    /// UART rate of the bitstream.
    #[arg(long, default_value_t = 1_000_000)]
    baud: u32,
    /// Use the Verilated board top instead of a serial port.
    #[arg(long)]
    sim: bool,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Board and core identification.
    Hello,
    /// Set parameters with tc-like words.
    Set { words: Vec<String> },
    /// Counters and parameters, like `tc -s qdisc show`.
    Show,
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
        #[arg(long, default_value_t = 32)]
        batch: usize,
        /// Board time between INJECT frames, us.
        #[arg(long, default_value_t = 0)]
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
        /// The simulated AQM, NAME or NAME:key=value,...; PIE's parameters also go to the board.
        #[arg(long, default_value = "pie")]
        aqm: String,
        /// The simulator's seed (also seeds the core's generator, as the simulator seeds PIE).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The sweep point of the scenario (0 without a sweep).
        #[arg(long, default_value_t = 0)]
        point: usize,
        /// Multiply the scenario's durations by this.
        #[arg(long, default_value_t = 1.0)]
        time_scale: f64,
        /// Stream only the first N arrivals.
        #[arg(long)]
        max: Option<usize>,
        /// Board time runs this many times faster than simulated time.
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

fn reg_addr(s: &str) -> Result<u8, String> {
    if let Some(d) = aqm_golden::pie::regs::by_name(s) {
        return Ok(d.addr);
    }
    let v = match s.strip_prefix("0x") {
        Some(h) => u8::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    };
    v.ok_or_else(|| format!("{s:?}: expected a register name (see hdl/REGISTERS.md) or an address"))
}

fn run<T: Transport>(c: &mut Client<T>, cmd: Cmd) -> Result<(), String> {
    let e = |e: ClientError| e.to_string();
    match cmd {
        Cmd::Hello => {
            let i = c.hello().map_err(e)?;
            println!(
                "core 0x{:08X} ({}), {} ns per cycle ({} MHz), {} cycles per UART bit, {} descriptors, \
                 verdict latency {} cycles, protocol {}",
                i.core_id,
                String::from_utf8_lossy(&i.core_id.to_be_bytes()),
                i.ns_per_cycle,
                1000 / i.ns_per_cycle.max(1),
                i.cycles_per_bit,
                i.capacity,
                i.verdict_latency,
                i.version
            );
        }
        Cmd::Set { words } => {
            for (a, v) in parse_set(&words)? {
                c.write(a, v).map_err(e)?;
            }
        }
        Cmd::Show => {
            let mut v = vec![];
            for &a in SHOWN {
                v.push(c.read(a).map_err(e)?);
            }
            print!("{}", format_show(&v));
        }
        Cmd::Reset => c.start().map_err(e)?,
        Cmd::Read { reg } => {
            let a = reg_addr(&reg)?;
            println!("0x{:08X}", c.read(a).map_err(e)?);
        }
        Cmd::Write { reg, value } => {
            let a = reg_addr(&reg)?;
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
                .map_err(|err| format!("cannot read {trace}: {err}"))?;
            let descs = parse_trace(&text).map_err(|m| format!("{trace}: {m}"))?;
            let words: Vec<String> = set.split_whitespace().map(String::from).collect();
            let params = parse_set(&words)?;
            let pacing = Pacing {
                batch,
                gap: Duration::from_micros(gap_us),
                ..Pacing::default()
            };
            c.timeout = Duration::from_secs(1);
            let rec = stream(c, &params, &descs, pacing).map_err(e)?;
            // The rate in the board's time: descriptors over the time to the last acceptance.
            let secs = rec
                .verdicts
                .last()
                .map_or(0.0, |v| v.accepted_ns as f64 / 1e9);
            let mut by = [0usize; 4];
            for v in &rec.verdicts {
                by[v.code as usize & 3] += 1;
            }
            println!(
                "{} descriptors: {} enqueued, {} marked, {} early drops, {} tail drops; {} departures \
                 ({:.0} descriptors/s of board time)",
                rec.verdicts.len(),
                by[0],
                by[1],
                by[2],
                by[3],
                rec.departures.len(),
                rec.verdicts.len() as f64 / secs
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
            if !(speed.is_finite() && speed > 0.0) {
                return Err(format!("--speed {speed}: must be more than 0"));
            }
            let run = simulate(&SimRunOptions {
                scenario,
                point,
                aqm: aqm.clone(),
                seed,
                time_scale,
                max,
            })?;
            if run.arrivals.is_empty() {
                return Err(format!("{}: no packet reached the bottleneck", run.label));
            }
            if let Some(path) = &save_trace {
                std::fs::write(path, run.trace_text())
                    .map_err(|err| format!("cannot write {path}: {err}"))?;
            }
            let words: Vec<String> = set.split_whitespace().map(String::from).collect();
            let mut params = run.register_writes();
            params.extend(parse_set(&words)?);
            let span_ns = run.arrivals.last().map_or(0, |a| a.at_ns);
            println!(
                "simulated {} with {aqm} (seed {seed}): {} arrivals in {:.3} s; streaming {} of them \
                 ({:.3} s simulated) at {speed}x, link {} Mbit/s",
                run.label,
                run.total_arrivals,
                run.duration_ns as f64 * 1e-9,
                run.arrivals.len(),
                span_ns as f64 * 1e-9,
                run.rate_bps as f64 / 1e6
            );
            let mut sim = [0usize; 4];
            for a in &run.arrivals {
                sim[a.sim_code as usize & 3] += 1;
            }
            println!(
                "simulator: {} enqueued, {} marked, {} dropped by the AQM, {} tail drops",
                sim[0], sim[1], sim[2], sim[3]
            );
            c.timeout = Duration::from_secs(1);
            let rec = stream_paced(c, &params, &run.arrivals, speed, Duration::from_millis(50))
                .map_err(e)?;
            let mut by = [0usize; 4];
            for v in &rec.verdicts {
                by[v.code as usize & 3] += 1;
            }
            println!(
                "board:     {} enqueued, {} marked, {} early drops, {} tail drops; {} departures",
                by[0],
                by[1],
                by[2],
                by[3],
                rec.departures.len()
            );
            let s = check_stream(&rec, &run.descriptors())?;
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
        run(
            &mut Client::new(SimTransport::new(
                aqm_verilated::BOARD_SIM_CPB,
                aqm_verilated::BOARD_SIM_NSPC,
            )),
            cli.cmd,
        )
    } else {
        match SerialTransport::open(&cli.port, cli.baud) {
            Ok(t) => run(&mut Client::new(t), cli.cmd),
            Err(err) => Err(err.to_string()),
        }
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(m) => {
            eprintln!("aqm-host: {m}");
            ExitCode::FAILURE
        }
    }
}
