//! Fuzzing the host tool's parsers and its protocol client: tc words, the descriptor trace, the stream
//! check fed a hostile record, and `Client` fed hostile board bytes. Arbitrary input, and valid input
//! with bytes or tokens flipped, inserted, deleted or duplicated. Never a panic; an error names its
//! place: the word, the line, the command byte.

#[path = "../../../golden/tests/support/fuzz.rs"]
mod fuzz;

use aqm_golden::dualpi2::kind::DUALPI2_CORE;
use aqm_golden::hw::regs::TcValue;
use aqm_golden::hw::CoreKind;
use aqm_golden::pie::kind::PIE_CORE;
use aqm_host::board_core::Core;
use aqm_host::client::{BoardInfo, Client, ClientError, DepartEvent, VerdictEvent};
use aqm_host::stream::{check_stream, parse_trace, StreamRecord};
use aqm_host::tc::parse_set;
use aqm_host::transport::Transport;
use aqm_protocol::{cmd, le, Descriptor, Frame, SYNC};
use fuzz::*;
use proptest::prelude::*;
use std::collections::VecDeque;
use std::time::Duration;

const CORES: [Core; 2] = [&PIE_CORE, &DUALPI2_CORE];

// ---- tc words ----

/// Every word the core takes, tc's absent options, and values at the edges.
fn tc_dict(core: Core) -> Vec<&'static str> {
    let mut v = vec![];
    for d in core.regs() {
        let Some(tc) = &d.tc else { continue };
        v.push(tc.word);
        v.extend(tc.aliases);
        match tc.value {
            TcValue::Flag { off, .. } => v.push(off),
            TcValue::Choice { words } => v.extend(words.iter().map(|c| c.0)),
            _ => {}
        }
    }
    for g in core.tc_groups() {
        v.extend(g.words);
    }
    v.extend(core.tc_absent().iter().map(|a| a.option));
    v.extend([
        "0",
        "1",
        "-1",
        "15ms",
        "0ms",
        "1500ns",
        "1s",
        "100s",
        "0.16",
        "5000",
        "1e9",
        "nan",
        "inf",
        "10%",
        "101%",
        "-5%",
        "20mbit",
        "0bit",
        "1bit",
        "off",
        "100p",
        "5p",
        "0x100000000",
        "0xffffffffffffffff",
        "99999999999999999999",
        "4294967295",
        "",
    ]);
    v
}

const TC_VALID: &[&str] = &[
    "target 15ms tupdate 16ms alpha 2 beta 20 limit 1000 ecn nobytemode link 20mbit",
    "link 2.5mbps target 1500 limit 100p",
    "target 10ms tupdate 16ms alpha 0.16 beta 3.2 coupling_factor 2 step_thresh 1ms min_qlen_step 0 \
     any_ect overflow limit 1024 mtu 1500 classic_protection 10% link 40mbit prob 50%",
    "k 4 step 2ms c_protection 30 l4s_ect",
    "alpha 1 max_rtt 100ms limit 100 typical_rtt 15ms target 5ms",
    "max_rtt 30ms",
    "seed 0x1234 prob 5%",
];

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

fn check_tc(core: Core, ws: &[String]) -> Result<(), TestCaseError> {
    match parse_set(core, ws) {
        Ok(writes) => {
            for (a, _) in writes {
                prop_assert!(core.register(a).is_some(), "a write to 0x{a:02X}");
            }
        }
        Err(e) => {
            prop_assert!(
                ws.iter()
                    .any(|w| !w.is_empty()
                        && (e.contains(w.as_str()) || e.contains(&format!("{w:?}")))),
                "{}: {ws:?}: an error that names no word: {e}",
                core.name()
            )
        }
    }
    Ok(())
}

// ---- the descriptor trace ----

const TRACE_VALID: &str = "# a trace\n1500 0\n64 1 # small\n\n9000 2\n0 3\n65535 0\n";

fn check_trace(text: &str) -> Result<(), TestCaseError> {
    let Err(e) = parse_trace(text) else {
        return Ok(());
    };
    let line: Option<usize> = e
        .strip_prefix("line ")
        .and_then(|r| r.split(':').next())
        .and_then(|n| n.parse().ok());
    prop_assert!(line.is_some(), "an error without its line: {e}");
    let line = line.unwrap_or_default();
    prop_assert!((1..=text.lines().count()).contains(&line), "{e}");
    let before: String = text
        .lines()
        .take(line - 1)
        .map(|l| format!("{l}\n"))
        .collect();
    prop_assert!(parse_trace(&before).is_ok(), "{e}: an earlier line fails");
    Ok(())
}

// ---- the stream check ----

/// A record as a hostile board could make it: HELLO facts, writes, verdicts and departures with
/// arbitrary fields, times mostly on whole cycles and small (the golden model replays every cycle up
/// to the last input).
fn hostile_record() -> impl Strategy<Value = (StreamRecord, Vec<(u16, u8)>)> {
    let nspc = prop_oneof![Just(25u32), Just(1u32), Just(0u32), 1u32..5000];
    let id = prop_oneof![Just(PIE_CORE.id()), Just(DUALPI2_CORE.id()), any::<u32>()];
    (id, nspc, any::<u8>(), 0u64..20_000, any::<bool>()).prop_flat_map(
        |(core_id, nspc, vlat, span, off_cycle)| {
            let time = move || {
                (0..=span, 0u64..nspc.max(1) as u64)
                    .prop_map(move |(c, o)| c * nspc as u64 + if off_cycle { o } else { 0 })
            };
            // As many verdicts as descriptors, mostly: else the check stops before the replay.
            let counts = (0usize..24, prop_oneof![8 => Just(0i8), 1 => -1i8..=1]);
            let shape = counts.prop_map(|(n, d)| (n, (n as isize + d as isize).max(0) as usize));
            let writes = prop::collection::vec((time(), any::<u8>(), any::<u32>()), 0..6);
            let verdict =
                (any::<u16>(), 0u8..4, 0u8..2, time()).prop_map(|(tag, code, queue, t)| {
                    VerdictEvent {
                        tag,
                        code,
                        queue,
                        accepted_ns: t,
                    }
                });
            let dv = shape.prop_flat_map(move |(n, m)| {
                (
                    prop::collection::vec((any::<u16>(), 0u8..4), n),
                    prop::collection::vec(verdict.clone(), m),
                )
            });
            let departures = prop::collection::vec(
                (
                    any::<u16>(),
                    any::<u16>(),
                    0u8..4,
                    any::<bool>(),
                    0u8..2,
                    any::<u64>(),
                )
                    .prop_map(|(tag, len, ecn, dropped, queue, sojourn_ns)| {
                        DepartEvent {
                            tag,
                            len,
                            ecn,
                            dropped,
                            queue,
                            sojourn_ns,
                        }
                    }),
                0..24,
            );
            (dv, writes, departures).prop_map(
                move |((descs, mut verdicts), mut writes, departures)| {
                    writes.sort();
                    verdicts.sort_by_key(|v| v.accepted_ns);
                    // Accepted one after another, mostly (one cycle apart at least).
                    for k in 1..verdicts.len() {
                        let prev = verdicts[k - 1].accepted_ns;
                        if verdicts[k].accepted_ns <= prev && !off_cycle {
                            verdicts[k].accepted_ns = prev + nspc as u64;
                        }
                    }
                    let rec = StreamRecord {
                        info: Some(BoardInfo {
                            version: 1,
                            core_id,
                            ns_per_cycle: nspc,
                            cycles_per_bit: 4,
                            capacity: 512,
                            event_depth: 256,
                            verdict_latency: vlat,
                        }),
                        writes,
                        verdicts,
                        departures,
                    };
                    (rec, descs)
                },
            )
        },
    )
}

// ---- the client ----

/// Board bytes from a script; nothing more arrives once it is used up (every wait times out).
struct Scripted {
    rx: VecDeque<u8>,
}

impl Transport for Scripted {
    fn send(&mut self, _bytes: &[u8]) -> std::io::Result<()> {
        Ok(())
    }
    fn recv(&mut self, _timeout: Duration) -> std::io::Result<Option<u8>> {
        Ok(self.rx.pop_front())
    }
    fn idle(&mut self, _d: Duration) {}
    fn elapsed(&self) -> Duration {
        Duration::ZERO
    }
}

/// A frame the board may send: every message kind with arbitrary fields, or any command and payload.
fn board_frame() -> impl Strategy<Value = Frame> {
    let payload = |n: usize| prop::collection::vec(any::<u8>(), n);
    prop_oneof![
        payload(16).prop_map(|p| Frame::new(cmd::HELLO | cmd::RESPONSE, p)),
        (any::<u32>(), 1u32..100, any::<u8>()).prop_map(|(id, nspc, vlat)| Frame::new(
            cmd::HELLO | cmd::RESPONSE,
            [
                vec![1],
                le(id as u64, 4),
                le(nspc as u64, 4),
                le(4, 2),
                le(512, 2),
                le(256, 2),
                vec![vlat]
            ]
            .concat()
        )),
        payload(5).prop_map(|p| Frame::new(cmd::READ | cmd::RESPONSE, p)),
        payload(6).prop_map(|p| Frame::new(cmd::WRITE | cmd::RESPONSE, p)),
        Just(Frame::new(cmd::START | cmd::RESPONSE, vec![])),
        payload(1).prop_map(|p| Frame::new(cmd::INJECT | cmd::RESPONSE, p)),
        payload(8).prop_map(|p| Frame::new(cmd::VERDICT, p)),
        (any::<u16>(), any::<u8>(), 0u64..10_000).prop_map(|(tag, code, t)| Frame::new(
            cmd::VERDICT,
            [le(tag as u64, 2), vec![code], le(t, 5)].concat()
        )),
        payload(10).prop_map(|p| Frame::new(cmd::DEPART, p)),
        payload(2).prop_map(|p| Frame::new(cmd::ERROR, p)),
        (any::<u8>(), prop::collection::vec(any::<u8>(), 0..24))
            .prop_map(|(c, p)| Frame::new(c, p)),
    ]
}

const CLIENT_INSERTS: &[&[u8]] = &[&[SYNC], &[SYNC, 0xFF], &[0], &[0xFF]];

fn check_client_error(e: &ClientError) -> Result<(), TestCaseError> {
    let m = e.to_string();
    match e {
        ClientError::Garbled(s) => prop_assert!(
            s.contains("command 0x") || s.contains("expected") || s.contains("unexpected answer"),
            "a garbled frame, but which? {m}"
        ),
        ClientError::Timeout { waiting_for } => prop_assert!(!waiting_for.is_empty()),
        ClientError::Board { cmd, .. } => prop_assert!(m.contains(&format!("0x{cmd:02X}")), "{m}"),
        ClientError::Implausible(s) => prop_assert!(
            ["HELLO_OK", "VERDICT", "DEPART"]
                .iter()
                .any(|w| s.starts_with(w)),
            "an implausible number, but where? {m}"
        ),
        ClientError::Deadline { waiting_for, .. } => prop_assert!(!waiting_for.is_empty()),
        _ => {}
    }
    Ok(())
}

/// Every call of a session against the script; each error names what it is about, and the client
/// keeps answering after one.
fn session(bytes: Vec<u8>) -> Result<(), TestCaseError> {
    let mut c = Client::new(Scripted { rx: bytes.into() });
    let d = Descriptor {
        len: 1500,
        ecn: 1,
        tag: 7,
    };
    // A bounded number of calls, each ends when the script does: no hang.
    for step in 0..12 {
        let r = match step % 6 {
            0 => c.hello().map(|_| ()),
            1 => c.start(),
            2 => c.write(0x10, 5).map(|_| ()),
            3 => c.inject(&[d, d]),
            4 => c.read(0x20).map(|_| ()),
            _ => c.drain_events(Duration::from_millis(1)),
        };
        if let Err(e) = r {
            check_client_error(&e)?;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn tc_arbitrary_words(core in prop::sample::select(&CORES[..]), text in arbitrary_text(60)) {
        check_tc(core, &words(&text))?;
    }

    #[test]
    fn tc_valid_lines_with_tokens_mutated(
        core in prop::sample::select(&CORES[..]),
        base in prop::sample::select(TC_VALID),
        edits in token_edits(5),
    ) {
        let dict = tc_dict(core);
        check_tc(core, &words(&apply_tokens(base, &edits, &dict)))?;
    }

    #[test]
    fn tc_valid_lines_with_bytes_mutated(
        core in prop::sample::select(&CORES[..]),
        base in prop::sample::select(TC_VALID),
        edits in byte_edits(4, &[b" ", b"%", b"ms", b".", b"0x", b"-"]),
    ) {
        check_tc(core, &words(&apply_text(base, &edits)))?;
    }

    #[test]
    fn trace_arbitrary_text(text in arbitrary_text(200)) {
        check_trace(&text)?;
    }

    #[test]
    fn trace_mutated(edits in byte_edits(6, &[b"\n", b"#", b" ", b"-", b"65536", b"4"])) {
        check_trace(&apply_text(TRACE_VALID, &edits))?;
    }

    #[test]
    fn trace_tokens_mutated(edits in token_edits(6)) {
        let dict = ["0", "3", "4", "65535", "65536", "-1", "#", "\n", "0x10", "1500"];
        check_trace(&apply_tokens(TRACE_VALID, &edits, &dict))?;
    }
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn stream_check_of_a_hostile_record((rec, descs) in hostile_record()) {
        // An answer, never a panic; a refusal says what it is about.
        if let Err(e) = check_stream(&rec, &descs) {
            prop_assert!(!e.is_empty());
        }
    }

    #[test]
    fn client_fed_board_frames(frames in prop::collection::vec(board_frame(), 0..16)) {
        session(frames.iter().flat_map(Frame::encode).collect())?;
    }

    #[test]
    fn client_fed_mutated_board_frames(
        frames in prop::collection::vec(board_frame(), 0..16),
        edits in byte_edits(6, CLIENT_INSERTS),
    ) {
        let bytes: Vec<u8> = frames.iter().flat_map(Frame::encode).collect();
        session(apply_bytes(&bytes, &edits))?;
    }

    #[test]
    fn client_fed_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        session(bytes)?;
    }
}

/// Found by `client_fed_board_frames`: a VERDICT stamped earlier than the verdict latency HELLO
/// reported made the client subtract with overflow (a panic; fixed on main by the bad-input work at
/// the same time): it is refused, naming the VERDICT.
#[test]
fn a_verdict_before_its_latency_is_refused_not_a_panic() {
    let hello = Frame::new(
        cmd::HELLO | cmd::RESPONSE,
        [
            vec![1],
            le(PIE_CORE.id() as u64, 4),
            le(25, 4),
            le(4, 2),
            le(512, 2),
            le(256, 2),
            vec![5],
        ]
        .concat(),
    );
    let verdict = Frame::new(cmd::VERDICT, [le(3, 2), vec![0], le(100, 5)].concat());
    let bytes: Vec<u8> = [hello, verdict].iter().flat_map(Frame::encode).collect();
    let mut c = Client::new(Scripted { rx: bytes.into() });
    c.hello().unwrap();
    let e = c.drain_events(Duration::from_millis(1)).unwrap_err();
    assert!(
        e.to_string().contains(
            "VERDICT for tag 3: its time 100 ns is less than the verdict latency (125 ns)"
        ),
        "{e}"
    );
}

/// A time beyond the protocol's 40-bit clock made the stream check add with overflow (a panic) or
/// replay for ever; it is refused, naming the time.
#[test]
fn a_record_with_a_time_beyond_40_bits_is_refused() {
    let info = BoardInfo {
        version: 1,
        core_id: PIE_CORE.id(),
        ns_per_cycle: 1,
        cycles_per_bit: 4,
        capacity: 512,
        event_depth: 256,
        verdict_latency: 5,
    };
    let v = |t: u64| VerdictEvent {
        tag: 0,
        code: 0,
        queue: 0,
        accepted_ns: t,
    };
    for t in [u64::MAX - 10, 1 << 40] {
        let rec = StreamRecord {
            info: Some(info),
            verdicts: vec![v(t)],
            ..StreamRecord::default()
        };
        let e = check_stream(&rec, &[(1500, 0)]).unwrap_err();
        assert!(
            e.contains(&format!("{t} ns")) && e.contains("40-bit"),
            "{e}"
        );
        let rec = StreamRecord {
            info: Some(info),
            writes: vec![(t, 0x10, 1)],
            ..StreamRecord::default()
        };
        let e = check_stream(&rec, &[]).unwrap_err();
        assert!(
            e.contains(&format!("{t} ns")) && e.contains("40-bit"),
            "{e}"
        );
    }
}
