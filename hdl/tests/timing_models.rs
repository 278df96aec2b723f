//! The Verilog models of hdl/timing (what `scripts/recurrences` places and routes) agree with each
//! other: Verilator builds `credit_loop_tb.v`, which runs the six forms of DualPI2's WRR credit on the
//! same pseudo-random inputs for a million cycles and stops with `$fatal` at the first difference.

use std::path::{Path, PathBuf};
use std::process::Command;

#[test]
fn the_credit_loop_forms_give_the_same_outputs() {
    let timing = Path::new(env!("CARGO_MANIFEST_DIR")).join("timing");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("credit_loop_tb");
    let build = Command::new("verilator")
        .args(["--binary", "--timing", "-Wall", "-Wno-DECLFILENAME"])
        .args(["--top-module", "credit_loop_tb", "-Mdir"])
        .arg(&dir)
        .arg(timing.join("credit_loop.v"))
        .arg(timing.join("credit_loop_tb.v"))
        .output()
        .expect("verilator runs (scripts/setup installs it)");
    assert!(
        build.status.success(),
        "verilator failed:\n{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let run = Command::new(dir.join("Vcredit_loop_tb")).output().unwrap();
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success() && out.contains("the six forms agree"),
        "{out}{}",
        String::from_utf8_lossy(&run.stderr)
    );
}
