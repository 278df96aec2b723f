//! `aqm-golden`: command-line access to the golden models.
//!
//! `aqm-golden replay [FILE]` replays a controller trace (spec/trace-format.md) from FILE, or from standard
//! input when FILE is `-` or missing, and prints one line per `update` and `enqueue`.

use clap::{Parser, Subcommand};
use std::io::Read;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "aqm-golden", about = "The golden fixed-point AQM models")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Replay a controller trace and print the controller's and the decisions' outputs.
    Replay {
        /// Trace file; `-` or nothing reads standard input.
        file: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Replay { file } => {
            let (name, text) = match file.as_deref() {
                None | Some("-") => {
                    let mut s = String::new();
                    if let Err(e) = std::io::stdin().read_to_string(&mut s) {
                        eprintln!("aqm-golden: cannot read standard input: {e}");
                        return ExitCode::FAILURE;
                    }
                    ("<stdin>".to_string(), s)
                }
                Some(f) => match std::fs::read(f) {
                    Ok(bytes) => match String::from_utf8(bytes) {
                        Ok(s) => (f.to_string(), s),
                        Err(e) => {
                            eprintln!("aqm-golden: {f}: not UTF-8 text ({e})");
                            return ExitCode::FAILURE;
                        }
                    },
                    Err(e) => {
                        eprintln!("aqm-golden: cannot read {f}: {e}");
                        return ExitCode::FAILURE;
                    }
                },
            };
            match aqm_golden::trace::replay(&text) {
                Ok(lines) => {
                    for l in lines {
                        println!("{l}");
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("aqm-golden: {name}:{e}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}
