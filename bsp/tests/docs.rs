//! The protocol document is generated from the code.

#[test]
fn protocol_document_matches_the_code() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/PROTOCOL.md"))
        .unwrap_or_default();
    assert!(
        doc == aqm_protocol::markdown(),
        "bsp/PROTOCOL.md is out of date: run `cargo run -p aqm-bsp --bin aqm-bitstream -- --docs`"
    );
}
