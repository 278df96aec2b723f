//! Fuzzing the scenario TOML and the simulator's units: arbitrary text, the named scenarios as TOML
//! with bytes and tokens mutated, and with values replaced by others of any type. Never a panic; an
//! error starts with the file's name and names the place: TOML's line and column, or the key.

#[path = "../../../golden/tests/support/fuzz.rs"]
mod fuzz;

use aqm_netsim::registry::{AqmSpec, FactoryContext, Registry, RegistryError};
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

/// AQM specs as the command line and the host's `sim-stream` take them.
const SPECS: &[&str] = &[
    "pie",
    "pie:target=15ms,tupdate=16ms,alpha=2,beta=20,limit=1000,ecn=on,bytemode=off",
    "dualpi2:target=15ms,k=2,step=1ms,drop_overload=on",
    "codel:target=5ms,interval=100ms",
    "fq_codel:ce_threshold=1ms,limit=10240,target=5ms",
    "cake:bandwidth=18Mbit,diffserv=diffserv4,overhead=docsis,rtt=100ms,wash=on",
    "htb:rate=18Mbit,qdisc=fq_codel,burst=15000",
    "red:min_th=30000,max_th=90000,max_p=0.1,w_q=0.002,avpkt=1000",
    "ared",
    "taildrop:limit=100",
    "docsis_pie:max_burst=142ms",
];

const SPEC_DICT: &[&str] = &[
    "pie",
    "dualpi2",
    "codel",
    "fq_codel",
    "cake",
    "htb",
    "red",
    "ared",
    "taildrop",
    "docsis_pie",
    "target=0ms",
    "limit=0",
    "limit=-1",
    "rate=0bit",
    "bandwidth=1bit",
    "qdisc=cake",
    "qdisc=htb",
    "qdisc=nosuch",
    "k=0",
    "alpha=nan",
    "max_p=inf",
    "w_q=1e-300",
    "overhead=-1",
    "diffserv=x",
    "interval=99999999999999999999s",
    "ecn=maybe",
    ":",
    ",",
    "=",
    "",
];

fn check_spec(text: &str) -> Result<(), TestCaseError> {
    let spec = match AqmSpec::parse(text) {
        Ok(s) => s,
        Err(RegistryError::BadSpec { spec, why }) => {
            prop_assert_eq!(&spec, text);
            prop_assert!(!why.is_empty());
            return Ok(());
        }
        Err(e) => return Err(TestCaseError::fail(format!("parse: {e}"))),
    };
    // The Verilated cores take a while to make; their parameters are the golden models'.
    if spec.name.contains("(hw)") {
        return Ok(());
    }
    let ctx = FactoryContext {
        seed: 1,
        link_rate_bps: 20_000_000,
    };
    let key_given = |k: &str| spec.params.iter().any(|(pk, _)| pk == k);
    match Registry::with_builtins().create(&spec, &ctx) {
        Ok(_) => {}
        Err(RegistryError::UnknownAqm { name, .. }) => prop_assert_eq!(name, spec.name.clone()),
        Err(RegistryError::UnknownParam { key, .. }) => prop_assert!(key_given(&key), "{key}"),
        Err(RegistryError::BadValue {
            key, value, why, ..
        }) => {
            prop_assert!(
                spec.params.iter().any(|(k, v)| *k == key && *v == value),
                "{key}={value}: {why}"
            );
        }
        Err(e) => prop_assert!(!e.to_string().is_empty()),
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn aqm_specs_with_tokens_mutated(base in prop::sample::select(SPECS), edits in token_edits(4)) {
        // Tokens are the spec's items: edit the list of `key=value`s.
        let spaced = base.replace([':', ','], " ");
        let edited = apply_tokens(&spaced, &edits, SPEC_DICT);
        let mut words = edited.split_whitespace();
        let name = words.next().unwrap_or("");
        let items: Vec<&str> = words.collect();
        let text = if items.is_empty() { name.to_string() } else { format!("{name}:{}", items.join(",")) };
        check_spec(&text)?;
    }

    #[test]
    fn aqm_specs_with_bytes_mutated(
        base in prop::sample::select(SPECS),
        edits in byte_edits(4, &[b":", b",", b"=", b"ms", b"0", b"-", b" (hw)"]),
    ) {
        check_spec(&apply_text(base, &edits))?;
    }

    #[test]
    fn aqm_specs_arbitrary(text in arbitrary_text(40)) {
        check_spec(&text)?;
    }
}

#[test]
fn the_bases_load() {
    for s in SPECS {
        let spec = AqmSpec::parse(s).unwrap();
        let ctx = FactoryContext {
            seed: 1,
            link_rate_bps: 20_000_000,
        };
        Registry::with_builtins()
            .create(&spec, &ctx)
            .unwrap_or_else(|e| panic!("{s}: {e}"));
    }
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

/// Found by `aqm_specs_with_tokens_mutated`: `htb:qdisc=nosuch` said `unknown AQM "nosuch"`, not which
/// parameter named it.
#[test]
fn an_unknown_inner_qdisc_is_the_qdisc_parameters_error() {
    let spec = AqmSpec::parse("htb:rate=18Mbit,qdisc=f_codel").unwrap();
    let ctx = FactoryContext {
        seed: 1,
        link_rate_bps: 20_000_000,
    };
    let e = Registry::with_builtins()
        .create(&spec, &ctx)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.starts_with("htb: parameter qdisc=\"f_codel\": unknown AQM \"f_codel\""),
        "{e}"
    );
}

/// Found by `aqm_specs_with_bytes_mutated`: `dualpi2:target=15s` was refused as
/// `target="15000000000ns"`, `red:max_th=9` as `min_th="20"` and `red:w_q=0.000` as `w_q="0"`:
/// values nobody wrote.
#[test]
fn a_duration_out_of_the_hardware_range_is_quoted_as_written() {
    let ctx = FactoryContext {
        seed: 1,
        link_rate_bps: 20_000_000,
    };
    let e = Registry::with_builtins()
        .create(&AqmSpec::parse("red:max_th=9").unwrap(), &ctx)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.contains("parameter max_th=\"9\": must be above min_th"),
        "{e}"
    );
    let e = Registry::with_builtins()
        .create(&AqmSpec::parse("red:w_q=0.000").unwrap(), &ctx)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.contains("parameter w_q=\"0.000\": must be more than 0"),
        "{e}"
    );
    for spec in ["dualpi2:target=15s", "pie:target=15s"] {
        let e = Registry::with_builtins()
            .create(&AqmSpec::parse(spec).unwrap(), &ctx)
            .err()
            .expect("refused")
            .to_string();
        assert!(
            e.contains("parameter target=\"15s\": expected whole microseconds"),
            "{e}"
        );
    }
}
