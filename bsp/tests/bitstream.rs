//! The bitstream builds for both board revisions and meets timing at the core clock.

use aqm_bsp::flow::{build, BoardCore};
use aqm_bsp::top::BoardRev;
use std::path::PathBuf;

#[test]
fn pie_line_card_bitstreams_build_and_meet_timing() {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bitstream");
    for rev in [BoardRev::V1, BoardRev::V2] {
        let r = build(BoardCore::Pie, rev, &out).unwrap_or_else(|e| panic!("{rev:?}: {e}"));
        let bin = std::fs::metadata(r.dir.join("top.bin")).expect("top.bin");
        // An HX8K bitstream is 135,100 bytes.
        assert!(bin.len() > 100_000, "{} bytes", bin.len());
        assert!(r.lcs <= r.lcs_total && r.brams <= 32);
        assert!(r.clocks.iter().all(|c| c.pass));
    }
}
