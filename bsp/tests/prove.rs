//! The formal proofs' quick mode (`scripts/prove --quick`: k-induction on the small descriptor queue,
//! the PRNG and the bridge's parser, bounded model checks and covers on both emitted cores and their
//! controllers) as a test. It lives in the bsp crate because `aqm-formal-emit`, which writes every
//! design the proofs check, needs the bridge. It needs SymbiYosys and
//! Yices from the ignored virtual environment `.venv` (scripts/setup makes it); without it the test is
//! skipped with a message, unless `AQM_REQUIRE_PROVE` is set (scripts/test sets it), when it fails.

use std::path::Path;
use std::process::Command;

#[test]
fn every_quick_proof_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let venv = root.join(".venv/bin/yowasp-sby");
    if !venv.exists() && std::env::var_os("AQM_REQUIRE_PROVE").is_none() {
        eprintln!(
            "skipped: {} is missing (run scripts/setup; set AQM_REQUIRE_PROVE=1 to fail instead)",
            venv.display()
        );
        return;
    }
    let out = Command::new(root.join("scripts/prove"))
        .arg("--quick")
        .current_dir(root)
        .env("AQM_FORMAL_EMIT", env!("CARGO_BIN_EXE_aqm-formal-emit"))
        .output()
        .expect("scripts/prove runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "scripts/prove --quick failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    for block in [
        "desc_queue<8>",
        "head_queue<8> reg",
        "head_queue<8> ram",
        "prng",
        "pie_core",
        "dualpi2_core",
        "pie controller",
        "dualpi2 controller",
        "bridge parser",
    ] {
        assert!(stdout.contains(block), "no proof of {block}:\n{stdout}");
    }
    assert!(!stdout.contains("failed"), "{stdout}");
}
