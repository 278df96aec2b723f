//! Helpers shared by the integration tests of several crates. A dev-dependency only: nothing here
//! is part of any crate's library.

use std::path::Path;
use std::process::Command;

/// Runs the binary at `bin` (in a test, `env!("CARGO_BIN_EXE_<name>")`) with `args` and waits for
/// it: whether it exited with success, and its standard output and standard error as text.
pub fn run(bin: impl AsRef<Path>, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(bin.as_ref())
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", bin.as_ref().display()));
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
