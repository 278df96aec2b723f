//! The option lines of the tc-pie(8) and tc-dualpi2(8) man pages (their EXAMPLES, and the defaults their
//! PARAMETERS sections give), pasted into `set` against the Verilated line cards: each is taken and
//! reads back as the registers the core's tc table says, or, for an option the hardware does not have,
//! refused with the reason.

use aqm_golden::dualpi2::kind::DUALPI2_CORE;
use aqm_golden::dualpi2::regs::addr as d;
use aqm_golden::pie::kind::PIE_CORE;
use aqm_golden::pie::regs::addr as p;
use aqm_host::board_core::Core;
use aqm_host::client::Client;
use aqm_host::tc::{format_json, format_show, parse_set, shown};
use aqm_host::transport::SimTransport;
use std::time::Duration;

const PIE: Core = &PIE_CORE;
const DUALPI2: Core = &DUALPI2_CORE;

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

/// A reset line card with `core`.
fn board(core: Core) -> Client<SimTransport> {
    let mut c = Client::new(SimTransport::new(core).unwrap());
    c.timeout = Duration::from_micros(500);
    c.start().unwrap();
    c
}

/// Sets `line` on a fresh board, checks every write reads back, and that the registers in `expect` hold
/// those values; returns the board.
fn replay(core: Core, line: &str, expect: &[(u8, u32)]) -> Client<SimTransport> {
    let mut c = board(core);
    let writes = parse_set(core, &words(line)).unwrap_or_else(|e| panic!("{line:?}: {e}"));
    for &(a, v) in &writes {
        c.write(a, v)
            .unwrap_or_else(|e| panic!("{line:?}: write 0x{a:02X} = {v}: {e}"));
    }
    for &(a, v) in writes.iter().chain(expect) {
        assert_eq!(c.read(a).unwrap(), v, "{line:?}: register 0x{a:02X}");
    }
    c
}

fn show(c: &mut Client<SimTransport>, core: Core) -> (String, String) {
    let v: Vec<u32> = shown(core)
        .into_iter()
        .map(|a| c.read(a).unwrap())
        .collect();
    (format_show(core, &v), format_json(core, &v))
}

#[test]
fn tc_pie_examples_set_the_pie_core() {
    // `tc qdisc add dev eth0 root pie`: the core's reset values are tc-pie's defaults.
    let mut c = replay(
        PIE,
        "",
        &[
            (p::LIMIT, 1000),
            (p::TARGET_US, 15_000),
            (p::ALPHA, 2),
            (p::BETA, 20),
        ],
    );
    let (text, json) = show(&mut c, PIE);
    assert!(
        text.starts_with("qdisc pie: limit 1000p target 15ms tupdate 15ms alpha 2 beta 20\n"),
        "{text}"
    );
    assert!(
        json.contains("\"options\":{\"limit\":1000,\"target\":15000"),
        "{json}"
    );
    // `... root pie limit 100 target 20ms tupdate 30ms ecn`
    let mut c = replay(
        PIE,
        "limit 100 target 20ms tupdate 30ms ecn",
        &[
            (p::LIMIT, 100),
            (p::TARGET_US, 20_000),
            (p::TUPDATE_US, 30_000),
            (p::ECN, 1),
            (p::BYTEMODE, 0),
        ],
    );
    let (text, _) = show(&mut c, PIE);
    assert!(
        text.starts_with("qdisc pie: limit 100p target 20ms tupdate 30ms alpha 2 beta 20 ecn\n"),
        "{text}"
    );
    // `... root pie limit 100 target 50ms tupdate 30ms bytemode`
    replay(
        PIE,
        "limit 100 target 50ms tupdate 30ms bytemode",
        &[(p::TARGET_US, 50_000), (p::BYTEMODE, 1), (p::ECN, 0)],
    );
    // `... root pie dq_rate_estimator`: the core has no rate estimator.
    let e = parse_set(PIE, &words("dq_rate_estimator")).unwrap_err();
    assert!(
        e.starts_with("dq_rate_estimator: the PIE core does not have this tc option"),
        "{e}"
    );
}

#[test]
fn tc_dualpi2_examples_and_defaults_set_the_dualpi2_core() {
    // `tc qdisc add dev eth0 root dualpi2`, then `... dualpi2 any_ect`.
    let mut c = replay(
        DUALPI2,
        "",
        &[(d::ECN_MASK, 1), (d::ALPHA, 41), (d::BETA, 819)],
    );
    let (text, json) = show(&mut c, DUALPI2);
    assert!(
        text.starts_with(
            "qdisc dualpi2: limit 1024p target 15ms tupdate 16ms alpha 0.16 beta 3.20 step_thresh 1ms \
             min_qlen_step 0p coupling_factor 2 drop_on_overload classic_protection 10% l4s_ect \
             drop_dequeue\n"
        ),
        "{text}"
    );
    assert!(json.contains("\"ecn-mask\":\"l4s-ect\""), "{json}");
    replay(DUALPI2, "any_ect", &[(d::ECN_MASK, 3)]);
    // The defaults tc-dualpi2(8) gives for each parameter, written out.
    replay(
        DUALPI2,
        "coupling_factor 2 step_thresh 1ms min_qlen_step 0 drop_on_overload l4s_ect \
         classic_protection 10 target 15ms tupdate 16ms alpha 0.16 beta 3.2",
        &[
            (d::K, 2),
            (d::STEP_US, 1000),
            (d::DROP_OVERLOAD, 1),
            (d::C_PROTECTION, 10),
            (d::TARGET_US, 15_000),
            (d::TUPDATE_US, 16_000),
            (d::ALPHA, 41),
            (d::BETA, 819),
        ],
    );
    // `max_rtt 100ms typical_rtt 15ms`, the default range of operation: target 15 ms, tupdate
    // min(15 ms, 100/3 ms) = 15 ms, alpha 0.1 * 0.015 / 0.1^2 = 0.15 Hz (38.4 / 256), beta 0.3 / 0.1 =
    // 3 Hz (768 / 256).
    let mut c = replay(
        DUALPI2,
        "max_rtt 100ms typical_rtt 15ms",
        &[
            (d::TARGET_US, 15_000),
            (d::TUPDATE_US, 15_000),
            (d::ALPHA, 38),
            (d::BETA, 768),
        ],
    );
    let (text, _) = show(&mut c, DUALPI2);
    assert!(text.contains(" alpha 0.15 beta 3.00 "), "{text}");
    replay(DUALPI2, "overflow", &[(d::DROP_OVERLOAD, 0)]);
}

#[test]
fn tc_dualpi2_options_the_core_lacks_are_refused_with_the_reason() {
    for (line, why) in [
        // tc's default limit is beyond the core's two queues of 512 descriptors.
        (
            "limit 10000",
            "LIMIT = 10000 is out of range: expected 1..=1024",
        ),
        ("memlimit 1514000", "the limit is in packets"),
        ("drop_enqueue", "where the core drops is fixed"),
        ("drop_dequeue", "where the core drops is fixed"),
        ("split_gso", "never sees a GSO aggregate"),
        ("no_split_gso", "never sees a GSO aggregate"),
        ("step_thresh 5p", "no packet-count mode"),
    ] {
        let e = parse_set(DUALPI2, &words(line)).unwrap_err();
        assert!(e.contains(why), "{line:?}: {e}");
    }
}

fn host(args: &[&str]) -> (bool, String, String) {
    aqm_testkit::run(env!("CARGO_BIN_EXE_aqm-host"), args)
}

#[test]
fn the_command_takes_a_pasted_tc_line_and_shows_like_tc() {
    let (ok, _, err) = host(&[
        "--sim",
        "--core",
        "dualpi2",
        "set",
        "alpha",
        "0.16",
        "beta",
        "3.2",
        "step_thresh",
        "5ms",
    ]);
    assert!(ok, "{err}");
    let (ok, _, err) = host(&["--sim", "--core", "dualpi2", "set", "memlimit", "1000"]);
    assert!(
        !ok && err.contains("memlimit: the DualPI2 core does not have this tc option"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    let (ok, out, err) = host(&["--sim", "--core", "dualpi2", "show"]);
    assert!(ok && out.contains(" alpha 0.16 beta 3.20 "), "{out}{err}");
    let (ok, out, err) = host(&["--sim", "show", "--json"]);
    assert!(
        ok && out.starts_with("[{\"kind\":\"pie\",\"options\":{\"limit\":1000,"),
        "{out}{err}"
    );
}
