//! The cycle contracts, hdl/PIE-CORE.md and hdl/DUALPI2-CORE.md, kept in sync with the golden models.
//!
//! One mechanism for both pages: a page states a timing constant in the fixed form "`NAME` = value";
//! every such statement must equal the golden constant, every constant the golden core module exports
//! (its `pub use` of `super::consts` and `crate::hw`) must be stated, and a known constant written with
//! a value in another form ("`NAME` 5", "| `NAME` | 5 |") is refused, so that no value escapes the check.
//!
//! Then PIE-CORE.md's cycle facts are pinned on `aqm_golden::pie::core::PieCoreModel` and on the rust-hdl
//! core (`aqm_hdl::cores::RustHdlPie`); the Verilated RTL is held to both, every output of every cycle, by
//! the conformance tests. DUALPI2-CORE.md's facts are pinned in golden/src/dualpi2/core/tests.rs.

use aqm_golden::dualpi2::consts as d2;
use aqm_golden::hw::ClockedCore;
use aqm_golden::pie::consts::{FIRST_UPDATE_NS, MAX_PROB};
use aqm_golden::pie::controller::update;
use aqm_golden::pie::core::{
    PieCoreInputs, PieCoreModel, BYTEMODE_HOLD, RECOMPUTE_CYCLES, TIME_BITS, TX_CYCLES,
    UPDATE_CYCLES, VERDICT_LATENCY, WAIT_LAG,
};
use aqm_golden::pie::params::DEFAULT_PARAMS;
use aqm_golden::pie::regs::{addr, CAPACITY};
use aqm_golden::pie::{PieParams, PieVars};
use aqm_golden::types::Ecn;
use aqm_hdl::cores::RustHdlPie;

// ---------------------------------------------------------------------------------------------------
// The pages' constants.

/// A contract page, the source of the golden core module it describes, and the golden value of every
/// constant it must state.
struct Page {
    file: &'static str,
    text: &'static str,
    module: &'static str,
    module_src: &'static str,
    constants: &'static [(&'static str, u64)],
}

/// `page!("PAGE.md", "golden module path", [NAME, NAME = value, ...])`: the page beside this crate, the
/// golden module under golden/src, and each constant by its name (its value the constant of that name in
/// scope, or the one given).
macro_rules! page {
    ($page:literal, $module:literal, [$($name:ident $(= $value:expr)?),* $(,)?]) => {
        Page {
            file: concat!("hdl/", $page),
            text: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/", $page)),
            module: concat!("golden/src/", $module),
            module_src: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../golden/src/", $module)),
            constants: &[$((stringify!($name), page!(@value $name $($value)?) as u64)),*],
        }
    };
    (@value $name:ident) => { $name };
    (@value $name:ident $value:expr) => { $value };
}

const PIE_PAGE: Page = page!(
    "PIE-CORE.md",
    "pie/core/mod.rs",
    [
        VERDICT_LATENCY,
        BYTEMODE_HOLD,
        UPDATE_CYCLES,
        RECOMPUTE_CYCLES,
        TX_CYCLES,
        WAIT_LAG,
        TIME_BITS,
        FIRST_UPDATE_NS,
        CAPACITY,
    ]
);

const DUALPI2_PAGE: Page = page!(
    "DUALPI2-CORE.md",
    "dualpi2/core/mod.rs",
    [
        VERDICT_LATENCY = d2::VERDICT_LATENCY,
        UPDATE_CYCLES = d2::UPDATE_CYCLES,
        RECOMPUTE_CYCLES = d2::RECOMPUTE_CYCLES,
        PARAM_CYCLES = d2::PARAM_CYCLES,
        TX_CYCLES = aqm_golden::dualpi2::core::TX_CYCLES,
        WAIT_LAG = aqm_golden::dualpi2::core::WAIT_LAG,
        HW_QUEUE_CAPACITY = d2::HW_QUEUE_CAPACITY,
    ]
);

fn is_constant_name(s: &str) -> bool {
    s.len() > 1
        && s.starts_with(|c: char| c.is_ascii_uppercase())
        && s.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// The constants a golden core module re-exports from its `consts` and from `crate::hw`.
fn exported_constants(src: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = src;
    while let Some(k) = rest.find("\npub use ") {
        let item = &rest[k + "\npub use ".len()..];
        let end = item.find(';').unwrap_or(item.len());
        let item = &item[..end];
        rest = &rest[k + 1..];
        if !(item.starts_with("super::consts") || item.starts_with("crate::hw")) {
            continue;
        }
        let list = match (item.find('{'), item.rfind('}')) {
            (Some(a), Some(b)) => &item[a + 1..b],
            _ => item.rsplit("::").next().unwrap_or(""),
        };
        for n in list.split(',') {
            // `A as B` exports B.
            let n = n.split(" as ").last().unwrap_or("").trim();
            if is_constant_name(n) {
                names.push(n.to_string());
            }
        }
    }
    names
}

/// Every "`NAME` = value" on a page, with its line number; and the places where a known constant is
/// followed by a number in another form.
fn statements(text: &str, known: &[&str]) -> (Vec<(String, String, usize)>, Vec<String>) {
    let mut found = Vec::new();
    let mut misformed = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let n = n + 1;
        let mut parts = line.split('`');
        // Pieces at odd positions are inside backticks.
        let _ = parts.next();
        while let (Some(name), Some(after)) = (parts.next(), parts.next()) {
            if !is_constant_name(name) {
                continue;
            }
            if let Some(v) = after.strip_prefix(" = ") {
                let v: String = v
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                found.push((name.to_string(), v, n));
            } else if known.contains(&name) {
                let t = after.trim_start_matches([' ', '|', '(', ':', '\t']);
                if t.starts_with(|c: char| c.is_ascii_digit()) {
                    misformed.push(format!(
                        "line {n}: `{name}` is followed by a value that is not in the form \"`{name}` = value\": {line:?}"
                    ));
                }
            }
        }
    }
    (found, misformed)
}

/// Everything wrong with a page's constants, one message each.
fn check(p: &Page) -> Vec<String> {
    let known: Vec<&str> = p.constants.iter().map(|c| c.0).collect();
    let mut errs = Vec::new();
    for e in exported_constants(p.module_src) {
        if !known.contains(&e.as_str()) {
            errs.push(format!(
                "{} exports `{e}`, which the test's list for {} lacks (add it there and state it on the page)",
                p.module, p.file
            ));
        }
    }
    let (found, misformed) = statements(p.text, &known);
    errs.extend(misformed.into_iter().map(|m| format!("{} {m}", p.file)));
    for (name, v, line) in &found {
        match p.constants.iter().find(|c| c.0 == name) {
            None => errs.push(format!(
                "{} line {line}: states `{name}` = {v}, but `{name}` is no constant of {}",
                p.file, p.module
            )),
            Some(&(_, golden)) => {
                let parsed: Option<u64> = v.replace('_', "").parse().ok();
                if parsed != Some(golden) {
                    errs.push(format!(
                        "{} line {line}: states `{name}` = {v}, the golden model has {golden}",
                        p.file
                    ));
                }
            }
        }
    }
    for &(name, golden) in p.constants {
        if !found.iter().any(|f| f.0 == name) {
            errs.push(format!(
                "{} never states `{name}` (the golden model has {golden}); write \"`{name}` = {golden}\"",
                p.file
            ));
        }
    }
    errs
}

fn assert_page(p: &Page) {
    let errs = check(p);
    assert!(errs.is_empty(), "\n{}", errs.join("\n"));
}

#[test]
fn pie_core_page_states_the_golden_constants() {
    assert_page(&PIE_PAGE);
}

#[test]
fn dualpi2_core_page_states_the_golden_constants() {
    assert_page(&DUALPI2_PAGE);
}

/// The checker itself: a wrong, a missing, a misformed and an unknown statement each fail.
#[test]
fn the_check_catches_every_kind_of_disagreement() {
    const CONSTS: &[(&str, u64)] = &[("A_CYCLES", 5), ("B_HOLD", 14)];
    let page = |text: &'static str| {
        Page {
        file: "test.md",
        text,
        module: "m.rs",
        module_src: "\npub use super::consts::{\n    A_CYCLES, B_HOLD,\n};\npub use crate::hw::io::{X as Y};\n",
        constants: CONSTS,
    }
    };
    assert_eq!(
        check(&page("`A_CYCLES` = 5, then `B_HOLD` = 14.")),
        Vec::<String>::new()
    );
    let e = check(&page("`A_CYCLES` = 6 and `B_HOLD` = 14"));
    assert_eq!(
        e,
        ["test.md line 1: states `A_CYCLES` = 6, the golden model has 5"]
    );
    let e = check(&page("`A_CYCLES` = 5"));
    assert!(
        e.len() == 1 && e[0].contains("never states `B_HOLD`"),
        "{e:?}"
    );
    let e = check(&page("`A_CYCLES` = 5, `B_HOLD` = 14\n| `A_CYCLES` | 5 |"));
    assert!(e.len() == 1 && e[0].contains("line 2"), "{e:?}");
    let e = check(&page("`A_CYCLES` = 5, `B_HOLD` = 14, `C_CYCLES` = 3"));
    assert!(e.len() == 1 && e[0].contains("no constant"), "{e:?}");
    let mut p = page("`A_CYCLES` = 5, `B_HOLD` = 14");
    p.module_src = "\npub use super::consts::{A_CYCLES, B_HOLD, NEW_CYCLES};\n";
    let e = check(&p);
    assert!(
        e.len() == 1 && e[0].contains("exports `NEW_CYCLES`"),
        "{e:?}"
    );
}

// ---------------------------------------------------------------------------------------------------
// PIE-CORE.md's cycle facts on the models. Cycle numbers as on the page: the bench is "in cycle n"
// between two edges; `clk` gives the outputs of cycle n and moves to cycle n+1.

/// A way to build a PIE core out of power-on.
type Model = fn() -> Box<dyn ClockedCore>;

fn golden() -> Box<dyn ClockedCore> {
    Box::new(PieCoreModel::new())
}

fn rust_hdl() -> Box<dyn ClockedCore> {
    Box::<RustHdlPie>::default()
}

/// Every fact is pinned on the golden model and on the rust-hdl core. (The Verilated RTL is held to
/// both, every output of every cycle, by sim/conformance.)
const MODELS: &[(&str, Model)] = &[("golden", golden), ("rust-hdl", rust_hdl)];

type Bench = aqm_golden::hw::bench::Bench<Box<dyn ClockedCore>>;

/// Runs `test` on a bench of each model, fresh from reset; a failure is preceded by the model's name.
fn on_each_model(test: impl Fn(&mut Bench)) {
    for &(name, model) in MODELS {
        eprintln!("on the {name} model");
        test(&mut Bench::after_reset(model(), 0));
    }
}

/// PIE's own steps.
trait PieBench {
    fn write_prob(&mut self, p: u64) -> u64;
    fn prob_lo(&mut self) -> u32;
}

impl PieBench for Bench {
    /// Writes a 56-bit prob through PROB_LO and PROB_HI (the recomputation not waited for).
    fn write_prob(&mut self, p: u64) -> u64 {
        self.set(addr::PROB_LO, p as u32);
        self.write(addr::PROB_HI, (p >> 32) as u32)
    }

    /// prob as it stands in this cycle (a PROB_LO read; the bench moves on by one cycle).
    fn prob_lo(&mut self) -> u32 {
        self.read(addr::PROB_LO).0
    }
}

#[test]
fn verdicts_come_verdict_latency_cycles_after_acceptance_one_per_clock() {
    on_each_model(|b| {
        // Back to back: in_ready stays high, each verdict VERDICT_LATENCY cycles after its acceptance; the
        // verdict ports are zero between verdicts.
        b.settle();
        b.i.in_valid = true;
        b.i.in_len = 100;
        let a = b.n;
        let mut seen = Vec::new();
        for k in 0..(8 + VERDICT_LATENCY) {
            b.i.in_tag = k as u16;
            b.i.in_valid = k < 8;
            let c = b.n;
            let o = b.clk();
            assert!(o.in_ready, "in_ready in cycle {c}");
            if o.verdict_valid {
                seen.push((c, o.verdict_tag, o.verdict_code));
            } else {
                assert_eq!((o.verdict_tag, o.verdict_code), (0, 0), "cycle {c}");
            }
        }
        let want: Vec<_> = (0..8u64)
            .map(|k| (a + k + VERDICT_LATENCY, k as u16, 0))
            .collect();
        assert_eq!(seen, want);
    });
}

#[test]
fn a_bytemode_packet_holds_p0_for_bytemode_hold_cycles() {
    on_each_model(|b| {
        b.set(addr::BYTEMODE, 1);
        let a = b.offer(DEFAULT_PARAMS.mtu as u16, Ecn::NotEct, 7);
        // in_ready low from a+1 to a+BYTEMODE_HOLD-1, high again in a+BYTEMODE_HOLD.
        b.i.in_valid = true;
        b.i.in_len = 64;
        b.i.in_tag = 8;
        let mut verdicts = Vec::new();
        let mut second = None;
        for _ in 0..40 {
            let c = b.n;
            let o = b.clk();
            if second.is_none() {
                assert_eq!(o.in_ready, c == a + BYTEMODE_HOLD, "in_ready in cycle {c}");
                if o.in_ready {
                    second = Some(c);
                    b.i.in_valid = false;
                }
            }
            if o.verdict_valid {
                verdicts.push((c, o.verdict_tag));
            }
        }
        let s = second.unwrap();
        assert_eq!(
            verdicts,
            [
                (a + VERDICT_LATENCY + BYTEMODE_HOLD - 1, 7),
                (s + VERDICT_LATENCY + BYTEMODE_HOLD - 1, 8)
            ]
        );
        // Longer than the MTU: no hold.
        b.settle();
        let a = b.offer(DEFAULT_PARAMS.mtu as u16 + 1, Ecn::NotEct, 9);
        assert_eq!(b.next_verdict(), (a + VERDICT_LATENCY, 9, 0));
    });
}

#[test]
fn an_enqueued_packet_reaches_the_head_three_cycles_after_its_push_and_is_not_idle_on_its_way() {
    on_each_model(|b| {
        b.dt = 10;
        b.settle();
        b.i.out_ready = true;
        let a = b.offer(200, Ecn::NotEct, 5);
        // Pushed at the edge of cycle a+VERDICT_LATENCY-1 with that cycle's now (the bench is in a+1).
        let push_now = b.i.now + (a + VERDICT_LATENCY - 1 - b.n) * b.dt;
        let mut dep = None;
        for _ in 0..20 {
            let c = b.n;
            let now = b.i.now;
            let o = b.clk();
            if c == a + VERDICT_LATENCY {
                assert!(
                    o.verdict_valid && !o.idle && !o.out_valid,
                    "cycle {c}: {o:?}"
                );
            }
            if c == a + VERDICT_LATENCY + 1 {
                assert!(!o.idle && !o.out_valid, "cycle {c}: {o:?}");
            }
            if o.out_valid {
                dep = Some((c, o.out_tag, o.out_sojourn, now));
                break;
            }
        }
        let (c, tag, sojourn, now) = dep.unwrap();
        assert_eq!((c, tag), (a + VERDICT_LATENCY + 2, 5));
        assert_eq!(sojourn, now - push_now);
    });
}

#[test]
fn a_departure_counts_two_cycles_later_and_the_link_model_takes_tx_cycles() {
    on_each_model(|b| {
        b.set(addr::LINK_BYTE_TIME, 256 * 3); // 3 ns per byte
        b.i.now = 1_000;
        b.offer(100, Ecn::NotEct, 1);
        b.offer(100, Ecn::NotEct, 2);
        b.settle();
        b.i.out_ready = true;
        let c = b.n;
        let o = b.clk();
        assert!(o.out_valid && o.out_tag == 1 && !o.link_busy);
        b.i.out_ready = false;
        // SENT_PKTS: a read in c+1 shows the old count, in c+2 the new one.
        assert_eq!(b.read(addr::SENT_PKTS).0, 0);
        assert_eq!(b.read(addr::SENT_PKTS).0, 1);
        assert_eq!(b.n, c + 3);
        // Tx from c+1 to c+TX_CYCLES (link_free = the departure time), Wait (link_free = its end) from
        // c+1+TX_CYCLES.
        while b.n < c + TX_CYCLES {
            let o = b.clk();
            assert!(o.link_busy && !o.out_valid);
            assert_eq!(o.link_free, 1_000);
        }
        let o = b.clk();
        assert_eq!(b.n, c + TX_CYCLES + 1);
        assert_eq!(o.link_free, 1_000, "cycle {}", c + TX_CYCLES);
        let o = b.clk();
        assert!(o.link_busy);
        assert_eq!(o.link_free, 1_000 + 300, "cycle {}", c + TX_CYCLES + 1);
        // Wait ends at the edge of the first cycle whose previous cycle's now reached link_free
        // (WAIT_LAG); the next cycle is Idle and exact.
        b.clks(5);
        assert!(b.out().link_busy);
        b.i.now = 1_300;
        for _ in 0..WAIT_LAG {
            let o = b.clk();
            assert!(
                o.link_busy && !o.out_valid,
                "now reached link_free WAIT_LAG cycles ago"
            );
        }
        let o = b.clk();
        assert!(o.link_busy && !o.out_valid);
        let o = b.out();
        assert!(!o.link_busy && o.out_valid && o.out_tag == 2);
        b.i.now = 1_350;
        assert_eq!(b.out().out_sojourn, 300, "departs at link_free, not at now");
    });
}

#[test]
fn a_controller_update_commits_update_cycles_after_it_fires() {
    on_each_model(|b| {
        assert_eq!(b.out().next_update, FIRST_UPDATE_NS);
        let half = MAX_PROB / 2;
        b.write_prob(half);
        b.settle();
        assert_eq!(b.prob_lo(), half as u32);
        // Due in cycle d, fires in d+1.
        b.i.now = FIRST_UPDATE_NS;
        b.i.reg_addr = addr::PROB_LO;
        b.i.reg_re = true;
        let d = b.n;
        let mut probs = Vec::new(); // prob of cycle c, c = d..
        let mut next = Vec::new();
        let mut idle = Vec::new();
        for _ in 0..UPDATE_CYCLES + 10 {
            let o = b.clk();
            next.push(o.next_update);
            idle.push(o.idle);
            probs.push(b.out().reg_rdata);
        }
        b.i.reg_re = false;
        let t = d + 1;
        let at = |c: u64| (c - d) as usize;
        assert_eq!(next[at(t)], FIRST_UPDATE_NS);
        assert_eq!(
            next[at(t + 1)],
            FIRST_UPDATE_NS + DEFAULT_PARAMS.tupdate_us as u64 * 1000
        );
        let first_change = probs.iter().position(|&p| p != half as u32).unwrap() as u64 + d;
        // Committed at the edge of cycle t+UPDATE_CYCLES, visible from the next one.
        assert_eq!(first_change, t + UPDATE_CYCLES + 1);
        assert!(idle[at(d)..=at(t + UPDATE_CYCLES)].iter().all(|&x| !x));
        assert!(idle[at(t + UPDATE_CYCLES + 1)]);
        // The value is the specification's update of the snapshot (qdelay 0, qdelay_old 0, backlog 0).
        let mut v = PieVars {
            prob: half,
            ..PieVars::new(0)
        };
        update(&mut v, &PieParams::default(), 0);
        assert_eq!(probs[at(t + UPDATE_CYCLES + 1)], v.prob as u32);
    });
}

#[test]
fn a_prob_write_is_recomputed_in_recompute_cycles_and_refused_while_the_controller_runs() {
    for &(name, model) in MODELS {
        eprintln!("on the {name} model");
        let mut b = Bench::after_reset(model(), 0);
        b.set(addr::PROB_LO, 12_345);
        let w = b.write(addr::PROB_HI, 0);
        // Strobe in w+1 = the start: committed at the edge of w+1+RECOMPUTE_CYCLES, visible from the next
        // cycle.
        b.i.reg_re = true;
        b.i.reg_addr = addr::PROB_LO;
        let mut probs = Vec::new();
        for _ in 0..RECOMPUTE_CYCLES + 4 {
            b.clk();
            probs.push(b.out().reg_rdata); // prob of cycle b.n - 1
        }
        b.i.reg_re = false;
        let first = probs.iter().position(|&p| p == 12_345).unwrap() as u64 + w + 1;
        assert_eq!(first, w + 2 + RECOMPUTE_CYCLES);
        // Rejected while busy: reg_err in w+2, STATUS.write_error from then on.
        let mut b = Bench::after_reset(model(), 0);
        b.write_prob(1);
        b.clks(3);
        let (status, _) = b.read(addr::STATUS);
        assert_eq!(status, 2, "controller busy");
        let w = b.write(addr::PROB_HI, 0);
        assert!(!b.clk().reg_err, "cycle {}", w + 1);
        assert!(b.clk().reg_err, "cycle {}", w + 2);
        assert!(!b.out().reg_err);
        assert_eq!(b.read(addr::STATUS).0 & 1, 1);
    }
}

#[test]
fn an_mtu_write_recomputes_prob_over_mtu_from_the_cycle_after() {
    on_each_model(|b| {
        b.write_prob(MAX_PROB / 4);
        b.settle();
        let w = b.write(addr::MTU, 1000);
        // Applied in w+1 (new MTU and `dirty` from w+2); the recomputation starts in w+2: busy from w+3
        // through its commit cycle w+2+RECOMPUTE_CYCLES.
        let mut status = Vec::new();
        b.i.reg_re = true;
        b.i.reg_addr = addr::STATUS;
        for _ in 0..RECOMPUTE_CYCLES + 6 {
            b.clk();
            status.push(b.out().reg_rdata); // STATUS of cycle b.n - 1
        }
        b.i.reg_re = false;
        let busy: Vec<u64> = status
            .iter()
            .enumerate()
            .filter(|(_, &s)| s & 2 != 0)
            .map(|(k, _)| w + 1 + k as u64)
            .collect();
        assert_eq!(busy.first(), Some(&(w + 3)));
        assert_eq!(busy.last(), Some(&(w + 2 + RECOMPUTE_CYCLES)));
        assert_eq!(busy.len() as u64, RECOMPUTE_CYCLES);
    });
}

#[test]
fn register_write_and_read_timing() {
    on_each_model(|b| {
        let w = b.write(addr::LIMIT, 77);
        // A read in w+1 still sees the old value; from w+2 the new one.
        assert_eq!(b.read(addr::LIMIT).0, DEFAULT_PARAMS.limit);
        assert_eq!(b.n, w + 2);
        assert_eq!(b.read(addr::LIMIT).0, 77);
        // rdata holds while rvalid is low.
        b.clk();
        let o = b.out();
        assert!(!o.reg_rvalid && o.reg_rdata == 77);
        // Rejected (out of range): reg_err in w+2 only, nothing changes.
        let w = b.write(addr::LIMIT, 0);
        assert!(!b.clk().reg_err);
        assert!(b.clk().reg_err);
        assert_eq!(b.n, w + 3);
        assert_eq!(b.read(addr::LIMIT).0, 77);
        assert_eq!(b.read(addr::STATUS).0, 1);
        b.set(addr::STATUS, 1);
        assert_eq!(b.read(addr::STATUS).0, 0);
        // An unmapped read: err with the answer, rdata 0, no sticky flag.
        assert_eq!(b.read(0x3F), (0, true));
        assert_eq!(b.read(addr::STATUS), (0, false));
        // One shadow register for every _HI half.
        b.write_prob(0x00AB_CDEF_0000_0001);
        b.settle();
        b.read(addr::PROB_LO);
        assert_eq!(b.read(addr::SEED_HI).0, 0x00AB_CDEF);
        assert_eq!(b.read(addr::CAPACITY).0, CAPACITY);
    });
}

#[test]
fn control_reset_resets_in_the_cycle_after_it_is_applied() {
    on_each_model(|b| {
        b.set(addr::LIMIT, 77);
        b.i.now = 1_000;
        let w = b.write(addr::CONTROL, 1);
        assert!(b.clk().in_ready, "cycle {}", w + 1);
        let o = b.clk();
        assert!(!o.in_ready && !o.idle, "cycle {}: rst internally", w + 2);
        assert_eq!(b.out().next_update, 1_000 + FIRST_UPDATE_NS);
        assert_eq!(b.read(addr::LIMIT).0, DEFAULT_PARAMS.limit);
        assert_eq!(b.read(addr::BURST).0, 2_343_750);
    });
}

#[test]
fn back_to_back_departures_drain_the_burst_allowance_in_d2() {
    on_each_model(|b| {
        b.offer(100, Ecn::NotEct, 1);
        b.offer(100, Ecn::NotEct, 2);
        b.settle();
        let burst0 = b.read(addr::BURST).0 as u64;
        assert_eq!(burst0, 2_343_750);
        // 10 ticks of 64 ns per cycle; out_ready held high: one departure per cycle.
        b.dt = 640;
        b.i.out_ready = true;
        b.i.reg_re = true;
        b.i.reg_addr = addr::BURST;
        let c = b.n;
        let mut deps = Vec::new();
        let mut burst = Vec::new(); // BURST of cycle c + k
        for _ in 0..8 {
            let n = b.n;
            let o = b.clk();
            if o.out_valid {
                deps.push((n, o.out_tag));
            }
            burst.push(b.out().reg_rdata as u64);
        }
        assert_eq!(deps, [(c, 1), (c + 1, 2)]);
        // The first departure after reset has no previous one (dtime 0); the second's D2 is c+3.
        assert_eq!(burst[..4], [burst0; 4]);
        assert_eq!(burst[4..], [burst0 - 10; 4]);
    });
}

/// The model's own latency accessor (what the event driver and the host use) says the same.
#[test]
fn the_models_verdict_latency_accessor_agrees() {
    let mut m = PieCoreModel::new();
    let mut i = PieCoreInputs {
        rst: true,
        ..PieCoreInputs::default()
    };
    m.step(&i);
    i.rst = false;
    let mtu = DEFAULT_PARAMS.mtu as u16;
    assert_eq!(m.verdict_latency(mtu), VERDICT_LATENCY);
    i.reg_we = true;
    i.reg_addr = addr::BYTEMODE;
    i.reg_wdata = 1;
    m.step(&i);
    i.reg_we = false;
    m.step(&i);
    assert_eq!(m.verdict_latency(mtu), VERDICT_LATENCY + BYTEMODE_HOLD - 1);
    assert_eq!(m.verdict_latency(mtu + 1), VERDICT_LATENCY);
}

#[test]
fn a_firing_while_the_controller_runs_waits_for_it_and_tupdate_does_not_rearm() {
    on_each_model(|b| {
        // A TUPDATE_US write leaves next_update where it is.
        b.set(addr::TUPDATE_US, 1_000);
        assert_eq!(b.out().next_update, FIRST_UPDATE_NS);
        // A recompute started in w+1; due from w+1 on, so fire from w+2, while the controller is busy.
        b.set(addr::PROB_LO, 99);
        let w = b.write(addr::PROB_HI, 0);
        b.i.now = FIRST_UPDATE_NS;
        let mut moved = None;
        for _ in 0..RECOMPUTE_CYCLES + 10 {
            let c = b.n;
            let o = b.clk();
            if moved.is_none() && o.next_update != FIRST_UPDATE_NS {
                moved = Some((c, o.next_update));
            }
        }
        // Idle again in w+2+RECOMPUTE_CYCLES: the update fires then, next_update moves in the next cycle.
        assert_eq!(
            moved,
            Some((w + 3 + RECOMPUTE_CYCLES, FIRST_UPDATE_NS + 1_000_000))
        );
    });
}

#[test]
fn control_bit_1_clears_the_counters_at_the_edge_that_applies_it() {
    on_each_model(|b| {
        b.offer(100, Ecn::NotEct, 1);
        b.settle();
        assert_eq!(b.read(addr::PKTS_IN).0, 1);
        b.write(addr::CONTROL, 2);
        assert_eq!(b.read(addr::PKTS_IN).0, 1, "cycle w+1");
        assert_eq!(b.read(addr::PKTS_IN).0, 0, "cycle w+2");
        assert_eq!(b.read(addr::BACKLOG_PKTS).0, 1, "state is not cleared");
    });
}

#[test]
fn a_previous_departure_older_than_2_to_the_38_ns_drains_the_whole_allowance() {
    on_each_model(|b| {
        b.offer(100, Ecn::NotEct, 1);
        b.offer(100, Ecn::NotEct, 2);
        b.settle();
        b.i.out_ready = true;
        assert_eq!(b.clk().out_tag, 1);
        b.i.out_ready = false;
        b.clks(4);
        // 2^40 + 640 ns later, in steps of 2^38: modulo 2^34 ticks that would be only 10 ticks.
        for _ in 0..4 {
            b.i.now += 1 << 38;
            b.clk();
        }
        b.i.now += 640;
        b.i.out_ready = true;
        assert_eq!(b.clk().out_tag, 2);
        b.i.out_ready = false;
        b.clks(2);
        assert_eq!(b.read(addr::BURST).0, 0);
    });
}
