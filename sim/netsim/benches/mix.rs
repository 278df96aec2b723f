//! `cargo bench -p aqm-netsim`: the simulator's speed on `mix` (one AQM, one seed), and the wall time of
//! the whole `mix` run for each reference AQM on all cores.

use aqm_netsim::bench::bench;
use aqm_netsim::scenario::named;
use aqm_netsim::{run_scenario, AqmSpec, Registry};
use std::time::Instant;

fn main() {
    let registry = Registry::with_builtins();
    let Some(mix) = named("mix") else {
        eprintln!("the mix scenario is missing");
        std::process::exit(1);
    };
    for aqm in ["taildrop", "codel"] {
        let spec = AqmSpec::parse(aqm).expect("a built-in name");
        match bench(&mix, &spec, 1, &registry, 10) {
            Ok(r) => println!("{}", r.report()),
            Err(e) => {
                eprintln!("bench failed: {e}");
                std::process::exit(1);
            }
        }
    }
    let aqms: Vec<AqmSpec> = ["taildrop", "red", "codel", "fq_codel"]
        .iter()
        .map(|a| AqmSpec::parse(a).expect("a built-in name"))
        .collect();
    let start = Instant::now();
    match run_scenario(&mix, &aqms, &[1, 2, 3], &registry, false) {
        Ok(r) => println!(
            "mix, 4 AQMs x 3 seeds on {} threads: {:.2} s wall ({} runs)",
            rayon::current_num_threads(),
            start.elapsed().as_secs_f64(),
            r.runs.len()
        ),
        Err(e) => {
            eprintln!("bench failed: {e}");
            std::process::exit(1);
        }
    }
}
