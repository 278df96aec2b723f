//! Fuzzing the scenario TOML and the simulator's units: arbitrary text, the named scenarios as TOML
//! with bytes and tokens mutated, and with values replaced by others of any type. Never a panic; an
//! error starts with the file's name and names the place: TOML's line and column, or the key.

#[path = "../../../golden/tests/support/fuzz.rs"]
mod fuzz;

use aqm_netsim::scenario::{named, Scenario, NAMED};
use aqm_netsim::units::{parse_bool, parse_duration_ns, parse_rate_bps};
use fuzz::*;
use proptest::prelude::*;

const ORIGIN: &str = "fuzz.toml";

/// The keys `Scenario::validate` names in its errors (a nested key starts with one of them).
const KEYS: &[&str] = &[
    "rate",
    "rtt",
    "duration",
    "warmup",
    "seeds",
    "packet_size",
    "timeseries",
    "checkpoints",
    "flows",
    "downstream",
    "sweep",
];

const DICT: &[&str] = &[
    "=",
    "\"10ms\"",
    "\"0ms\"",
    "\"20Mbit\"",
    "\"0bit\"",
    "\"2min\"",
    "\"min\"",
    "\"99999999999999999999s\"",
    "10",
    "-1",
    "0",
    "1.5",
    "nan",
    "inf",
    "true",
    "[]",
    "[1]",
    "[\"1Mbit\"]",
    "{}",
    "[[flows]]",
    "[sweep]",
    "[downstream]",
    "[aqm_sweep.pie]",
    "kind",
    "\"reno\"",
    "\"short\"",
    "\"probe\"",
    "\"cbr\"",
    "count",
    "rate",
    "rtt",
    "duration",
    "warmup",
    "flows",
    "seeds",
    "checkpoints",
    "limit_bytes",
    "port_bytes",
    "\n",
    "#",
];

const INSERTS: &[&[u8]] = &[
    b"\n", b"=", b"\"", b"[", b"]", b",", b"#", b"0", b"ms", b"\\", b"'''", b"\xff",
];

/// A small scenario of every flow kind, beside the named ones.
const SMALL: &str = r#"
name = "small"
rate = "10Mbit"
rtt = "20ms"
duration = "5s"
warmup = "1s"
seeds = [1]
checkpoints = ["2s"]
timeseries = "100ms"

[[flows]]
kind = "reno"
count = 2
ecn = true

[[flows]]
kind = "short"
rate = 5.0
packets = 20

[[flows]]
kind = "probe"
interval = "10ms"
size = 100

[[flows]]
kind = "cbr"
rate = "1Mbit"
rtt = "50ms"

[downstream]
rate = "5Mbit"
limit_bytes = 100000

[sweep]
port_bytes = [100000, 200000]
"#;

fn valid_toml() -> impl Strategy<Value = String> {
    let mut bases: Vec<String> = NAMED
        .iter()
        .map(|n| named(n).expect("named").to_toml())
        .collect();
    bases.push(SMALL.to_string());
    prop::sample::select(bases)
}

fn check(text: &str) -> Result<(), TestCaseError> {
    match Scenario::from_toml(text, ORIGIN) {
        Ok(s) => {
            // A scenario that loads expands into its runs and prints as TOML that loads back.
            prop_assert!(!s.points().is_empty());
            let back = Scenario::from_toml(&s.to_toml(), ORIGIN);
            prop_assert_eq!(back.as_ref(), Ok(&s), "{}", s.to_toml());
        }
        Err(e) => {
            let rest = e.strip_prefix(&format!("{ORIGIN}: "));
            prop_assert!(rest.is_some(), "{e}");
            let rest = rest.unwrap_or_default();
            let placed = rest.contains("line ") && rest.contains("column ");
            let keyed = KEYS.iter().any(|k| rest.starts_with(k));
            prop_assert!(placed || keyed, "an error without its place: {e}");
        }
    }
    Ok(())
}

/// A TOML value of any type, with the units and edges scenarios care about.
fn value() -> impl Strategy<Value = toml::Value> {
    let leaf = prop_oneof![
        prop::sample::select(vec![
            "10ms", "0ms", "0ns", "11s", "25h", "2min", "1.5s", "20Mbit", "1kbit", "999bit",
            "10MB", "", "reno", "cubic", "scalable", "short", "probe", "cbr", "x",
        ])
        .prop_map(|s| toml::Value::String(s.into())),
        any::<i64>().prop_map(toml::Value::Integer),
        (0i64..20_000).prop_map(toml::Value::Integer),
        any::<f64>().prop_map(toml::Value::Float),
        any::<bool>().prop_map(toml::Value::Boolean),
    ];
    leaf.prop_recursive(2, 8, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(toml::Value::Array),
            prop::collection::vec(("[a-z_]{1,12}", inner), 0..3)
                .prop_map(|kv| toml::Value::Table(kv.into_iter().collect())),
        ]
    })
}

/// Replaces the value at a path (picked by `pick`) of `t`, or adds a key, or removes one.
fn edit_table(t: &mut toml::Table, pick: &[usize], v: toml::Value, op: u8) {
    let keys: Vec<String> = t.keys().cloned().collect();
    if keys.is_empty() {
        t.insert("name".into(), v);
        return;
    }
    let k = &keys[pick.first().copied().unwrap_or(0) % keys.len()];
    match (op % 4, t.get_mut(k)) {
        (0, Some(toml::Value::Table(sub))) if pick.len() > 1 => {
            edit_table(sub, &pick[1..], v, op / 4)
        }
        (0, Some(toml::Value::Array(a))) if pick.len() > 1 && !a.is_empty() => {
            let n = a.len();
            match &mut a[pick[1] % n] {
                toml::Value::Table(sub) if pick.len() > 2 => edit_table(sub, &pick[2..], v, op / 4),
                x => *x = v,
            }
        }
        (1, _) => {
            t.remove(k);
        }
        (2, _) => {
            let new = KEYS[pick.first().copied().unwrap_or(0) % KEYS.len()];
            t.insert(new.into(), v);
        }
        _ => {
            t.insert(k.clone(), v);
        }
    }
}

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn arbitrary_text_loads_or_is_placed(text in arbitrary_text(300)) {
        check(&text)?;
    }

    #[test]
    fn scenarios_with_bytes_mutated(base in valid_toml(), edits in byte_edits(6, INSERTS)) {
        check(&apply_text(&base, &edits))?;
    }

    #[test]
    fn scenarios_with_tokens_mutated(base in valid_toml(), edits in token_edits(6)) {
        check(&apply_tokens(&base, &edits, DICT))?;
    }

    #[test]
    fn scenarios_with_values_replaced(
        base in valid_toml(),
        edits in prop::collection::vec(
            (prop::collection::vec(any::<usize>(), 1..4), value(), any::<u8>()),
            1..4,
        ),
    ) {
        let mut t: toml::Table = toml::from_str(&base).expect("the bases are valid");
        for (pick, v, op) in edits {
            edit_table(&mut t, &pick, v, op);
        }
        if let Ok(text) = toml::to_string(&t) {
            check(&text)?;
        }
    }

    #[test]
    fn units_name_the_text(text in arbitrary_text(16), base in prop::sample::select(vec![
        "10ms", "2min", "1.5s", "20Mbit", "500kbps", "on", "off",
    ]), edits in byte_edits(3, INSERTS)) {
        for s in [text, apply_text(base, &edits)] {
            let quoted = format!("{s:?}");
            if let Err(e) = parse_duration_ns(&s) {
                prop_assert!(e.contains(&quoted), "{e}");
            }
            if let Err(e) = parse_rate_bps(&s) {
                prop_assert!(e.contains(&quoted), "{e}");
            }
            if let Err(e) = parse_bool(&s) {
                prop_assert!(e.contains(&quoted), "{e}");
            }
        }
    }
}

#[test]
fn the_bases_load() {
    for n in NAMED {
        Scenario::from_toml(&named(n).unwrap().to_toml(), n).unwrap();
    }
    Scenario::from_toml(SMALL, "small").unwrap();
}

/// Found by `units_name_the_text`: a bad number before `min` was reported as the seconds the parser
/// made of it (`invalid duration ":s"` for `":min"`).
#[test]
fn a_bad_minutes_duration_is_reported_as_written() {
    let e = parse_duration_ns(":min").unwrap_err();
    assert!(
        e.contains("invalid duration \":min\"") && e.contains("at byte 0"),
        "{e}"
    );
    let e = parse_duration_ns(" 5 xmin").unwrap_err();
    assert!(
        e.contains("invalid duration \" 5 xmin\"") && e.contains("unknown unit \"xmin\" at byte 3"),
        "{e}"
    );
    assert_eq!(parse_duration_ns(" 2 min"), Ok(120_000_000_000));
}
