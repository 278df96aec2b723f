//! Fuzzing the controller trace parser and replayer (spec/trace-format.md): arbitrary text, and valid
//! traces (the examples, generated ones) with bytes and tokens flipped, inserted, deleted or duplicated.
//! Never a panic; an error names its line, which is the first line that cannot replay.

#[path = "support/fuzz.rs"]
mod fuzz;

use aqm_golden::trace::{replay, TraceError};
use fuzz::*;
use proptest::prelude::*;

const PIE_EXAMPLE: &str = include_str!("../traces/pie-example.trace");
const DUALPI2_EXAMPLE: &str = include_str!("../traces/dualpi2-example.trace");

/// Words a trace is made of, and the numbers at the edges.
const DICT: &[&str] = &[
    "mode",
    "pie",
    "dualpi2",
    "set",
    "update",
    "enqueue",
    "elapse",
    "target_us",
    "tupdate_us",
    "alpha",
    "beta",
    "limit",
    "mtu",
    "ecn",
    "bytemode",
    "burst_us",
    "prob",
    "k",
    "step_us",
    "ecn_mask",
    "drop_overload",
    "0",
    "1",
    "3",
    "4",
    "0x",
    "0X1f",
    "0xffffffffffffffff",
    "0x10000000000000000",
    "18446744073709551615",
    "18446744073709551616",
    "4294967296",
    "-1",
    "#",
    "\n",
];

const INSERTS: &[&[u8]] = &[
    b"\n",
    b"#",
    b" ",
    b"0x",
    b"9999999999999999999999",
    b"mode pie\n",
    b"mode dualpi2\n",
    b"\xff",
    b"\r\n",
];

/// Checks what the property promises for one text: no panic (the test fails on one), and an error
/// that names a line of the text, the first one that does not replay.
fn check(text: &str) -> Result<(), TestCaseError> {
    let Err(e) = replay(text) else {
        return Ok(());
    };
    let TraceError { line, message } = &e;
    let lines = text.lines().count();
    prop_assert!((1..=lines).contains(line), "line {line} of {lines}: {e}");
    prop_assert!(!message.is_empty());
    prop_assert!(e.to_string().starts_with(&format!("line {line}: ")), "{e}");
    // Everything before the line it names replays.
    let before: String = text
        .lines()
        .take(line - 1)
        .map(|l| format!("{l}\n"))
        .collect();
    prop_assert!(
        replay(&before).is_ok(),
        "{e}, but an earlier line fails: {:?}",
        replay(&before)
    );
    Ok(())
}

/// A number as a trace may write it: small, at an edge, decimal or hex.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u64..100_000).prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| format!("{n:#x}")),
        prop::sample::select(vec![0u64, 1, 2, 3, u32::MAX as u64, u64::MAX])
            .prop_map(|n| n.to_string()),
    ]
}

/// A well-formed trace line (it may still be refused: a value out of range).
fn command() -> impl Strategy<Value = String> {
    prop_oneof![
        (prop::sample::select(&DICT[7..21]), number()).prop_map(|(k, v)| format!("set {k} {v}")),
        (number(), number()).prop_map(|(q, b)| format!("update {q} {b}")),
        (0u64..2000, 0u8..4, any::<u64>(), prop::option::of(number())).prop_map(|(l, e, r, b)| {
            let b = b.map_or(String::new(), |b| format!(" {b}"));
            format!("enqueue {l} {e} {r:#x}{b}")
        }),
        number().prop_map(|u| format!("elapse {u}")),
        Just("# a comment".to_string()),
        Just(String::new()),
    ]
}

fn generated_trace() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["pie", "dualpi2"]),
        prop::collection::vec(command(), 0..24),
    )
        .prop_map(|(mode, lines)| format!("mode {mode}\n{}\n", lines.join("\n")))
}

fn valid_trace() -> impl Strategy<Value = String> {
    prop_oneof![
        1 => Just(PIE_EXAMPLE.to_string()),
        1 => Just(DUALPI2_EXAMPLE.to_string()),
        4 => generated_trace(),
    ]
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn arbitrary_text_is_an_error_naming_its_line_or_replays(text in arbitrary_text(400)) {
        check(&text)?;
    }

    #[test]
    fn valid_traces_with_bytes_mutated(base in valid_trace(), edits in byte_edits(6, INSERTS)) {
        check(&apply_text(&base, &edits))?;
    }

    #[test]
    fn valid_traces_with_tokens_mutated(base in valid_trace(), edits in token_edits(6)) {
        check(&apply_tokens(&base, &edits, DICT))?;
    }

    #[test]
    fn generated_traces_replay_or_name_their_line(text in generated_trace()) {
        check(&text)?;
    }
}

#[test]
fn the_examples_replay() {
    assert!(replay(PIE_EXAMPLE).is_ok());
    assert!(replay(DUALPI2_EXAMPLE).is_ok());
}
