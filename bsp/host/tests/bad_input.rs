//! Bad input, tried as a new user would: a board that sends impossible numbers or floods the host, and a
//! user who gives out-of-range values. Each is a clear error naming the thing and the range, never a
//! panic, a hang or a half-applied change.

use aqm_golden::pie::kind::PIE_CORE;
use aqm_golden::pie::regs::{addr, PIE_ID};
use aqm_host::board_core::Core;
use aqm_host::client::{BoardInfo, Client, ClientError};
use aqm_host::stream::{stream, Pacing};
use aqm_host::tc::parse_set;
use aqm_host::transport::{SimTransport, Transport};
use aqm_host::writes::{apply_all, check_writes};
use aqm_protocol::{cmd, le, Decoded, Decoder, Descriptor, Frame};
use std::collections::VecDeque;
use std::io;
use std::time::Duration;

const PIE: Core = &PIE_CORE;

/// What the PIE line card's HELLO says.
const PIE_HELLO: BoardInfo = BoardInfo {
    version: aqm_protocol::VERSION,
    core_id: PIE_ID,
    ns_per_cycle: 25,
    cycles_per_bit: 4,
    capacity: 1024,
    event_depth: 64,
    verdict_latency: 5,
};

fn hello_frame(h: BoardInfo) -> Vec<u8> {
    let mut p = vec![h.version];
    p.extend(le(h.core_id.into(), 4));
    p.extend(le(h.ns_per_cycle.into(), 4));
    p.extend(le(h.cycles_per_bit.into(), 2));
    p.extend(le(h.capacity.into(), 2));
    p.extend(le(h.event_depth.into(), 2));
    p.push(h.verdict_latency);
    Frame::new(cmd::HELLO | cmd::RESPONSE, p).encode()
}

fn verdict_frame(tag: u16, time: u64) -> Vec<u8> {
    let mut p = le(tag.into(), 2);
    p.push(0);
    p.extend(le(time, 5));
    Frame::new(cmd::VERDICT, p).encode()
}

/// A board in-process: answers HELLO, START and INJECT (with `on_inject` before INJECT_OK), and sends
/// `flood` again and again whenever the host waits and nothing else is due. Its clock: 10 us per byte
/// (1 Mbaud), the whole timeout when nothing comes.
struct FakeBoard {
    hello: BoardInfo,
    on_inject: Vec<u8>,
    flood: Vec<u8>,
    /// Answers nothing (only the flood).
    mute: bool,
    inbox: VecDeque<u8>,
    decoder: Decoder,
    now: Duration,
    /// Bytes the host has read.
    received: usize,
}

impl FakeBoard {
    fn new(hello: BoardInfo) -> FakeBoard {
        FakeBoard {
            hello,
            on_inject: vec![],
            flood: vec![],
            mute: false,
            inbox: VecDeque::new(),
            decoder: Decoder::new(),
            now: Duration::ZERO,
            received: 0,
        }
    }
}

impl Transport for FakeBoard {
    fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        for &b in bytes {
            let Some(Decoded::Frame(f)) = self.decoder.push(b) else {
                continue;
            };
            let answer = match f.cmd {
                cmd::HELLO => hello_frame(self.hello),
                cmd::START => Frame::new(cmd::START | cmd::RESPONSE, vec![]).encode(),
                cmd::INJECT => {
                    let mut v = self.on_inject.clone();
                    v.extend(
                        Frame::new(
                            cmd::INJECT | cmd::RESPONSE,
                            vec![(f.payload.len() / 5) as u8],
                        )
                        .encode(),
                    );
                    v
                }
                _ => vec![],
            };
            if !self.mute {
                self.inbox.extend(answer);
            }
        }
        Ok(())
    }

    fn recv(&mut self, timeout: Duration) -> io::Result<Option<u8>> {
        if self.inbox.is_empty() {
            self.inbox.extend(&self.flood);
        }
        match self.inbox.pop_front() {
            Some(b) => {
                self.now += Duration::from_micros(10);
                self.received += 1;
                Ok(Some(b))
            }
            None => {
                self.now += timeout;
                Ok(None)
            }
        }
    }

    fn idle(&mut self, d: Duration) {
        self.now += d;
    }

    fn elapsed(&self) -> Duration {
        self.now
    }
}

fn desc(tag: u16) -> Descriptor {
    Descriptor {
        len: 100,
        ecn: 0,
        tag,
    }
}

fn implausible(r: Result<impl std::fmt::Debug, ClientError>) -> String {
    match r {
        Err(e @ ClientError::Implausible(_)) => e.to_string(),
        other => panic!("expected an impossible value reported, got {other:?}"),
    }
}

#[test]
fn frames_found_by_a_rescan_are_answers_without_waiting_for_more_bytes() {
    // A false start (SYNC, a length, a command) whose bad CRC makes the decoder rescan: the rescan
    // finds the whole HELLO_OK inside it. The first HELLO reports the garbled frame; the second gets
    // the HELLO_OK already received, from a board that sends nothing more.
    let hello = hello_frame(PIE_HELLO);
    let mut garbage = vec![aqm_protocol::SYNC, hello.len() as u8, 0x55];
    garbage.extend(&hello);
    garbage.push(0x00);
    assert_ne!(aqm_protocol::crc8(&garbage[1..garbage.len() - 1]), 0x00);
    let mut b = FakeBoard::new(PIE_HELLO);
    b.mute = true;
    b.inbox.extend(garbage);
    let mut c = Client::new(b);
    match c.hello() {
        Err(ClientError::Garbled(m)) => assert!(m.contains("bad CRC"), "{m}"),
        other => panic!("expected the garbled frame reported, got {other:?}"),
    }
    let info = c.hello().expect("the HELLO_OK found by the rescan");
    assert_eq!(info.core_id, PIE_ID);
}

#[test]
fn a_verdict_time_below_the_verdict_latency_is_an_error_not_an_overflow() {
    let mut b = FakeBoard::new(PIE_HELLO);
    // 5 cycles of 25 ns: a verdict at 100 ns would have been accepted 25 ns before START.
    b.on_inject = verdict_frame(0, 100);
    let mut c = Client::new(b);
    c.hello().unwrap();
    c.start().unwrap();
    let e = implausible(c.inject(&[desc(0)]));
    assert!(
        e.contains("VERDICT for tag 0")
            && e.contains("100 ns")
            && e.contains("verdict latency (125 ns)"),
        "{e}"
    );
    assert!(c.verdicts.is_empty());
}

#[test]
fn an_event_time_beyond_the_board_time_since_start_is_refused() {
    let mut b = FakeBoard::new(PIE_HELLO);
    // 2^40 - 1 ns is 18 minutes; the board has run for microseconds.
    b.on_inject = verdict_frame(0, (1 << 40) - 1);
    let mut c = Client::new(b);
    c.hello().unwrap();
    c.start().unwrap();
    let e = implausible(c.inject(&[desc(0)]));
    assert!(e.contains("of board time have passed"), "{e}");
}

/// One field of a HELLO set out of its range.
type Spoil = fn(&mut BoardInfo);

#[test]
fn every_hello_field_out_of_range_is_refused_naming_the_field() {
    let cases: [(Spoil, &str); 8] = [
        (|h| h.version = 9, "protocol version 9"),
        (|h| h.core_id = 0x1234_5678, "0x12345678"),
        (|h| h.ns_per_cycle = 0, "ns_per_cycle 0: expected 1..=1000"),
        (|h| h.ns_per_cycle = 5000, "ns_per_cycle 5000"),
        (|h| h.cycles_per_bit = 0, "cycles_per_bit 0"),
        (|h| h.capacity = 0, "capacity 0"),
        (|h| h.event_depth = 0, "event_depth 0"),
        (
            |h| h.verdict_latency = 200,
            "verdict_latency 200 cycles: the PIE core's is 5",
        ),
    ];
    for (bad, want) in cases {
        let mut h = PIE_HELLO;
        bad(&mut h);
        let mut c = Client::new(FakeBoard::new(h));
        let e = implausible(c.hello());
        assert!(e.contains("HELLO_OK") && e.contains(want), "{want}: {e}");
        assert!(c.info.is_none());
    }
    assert!(Client::new(FakeBoard::new(PIE_HELLO)).hello().is_ok());
}

#[test]
fn a_board_flooding_verdicts_is_stopped_at_one_verdict_per_descriptor() {
    let mut b = FakeBoard::new(PIE_HELLO);
    b.flood = verdict_frame(7, 200);
    let mut c = Client::new(b);
    c.hello().unwrap();
    // Before START the events of a previous session are taken (and dropped by START), up to a bound.
    c.start().unwrap();
    c.inject(&[desc(0), desc(1)]).unwrap();
    let e = implausible(c.drain_events(Duration::from_millis(1)));
    assert!(
        e.contains("verdict 3 but only 2 descriptors were injected since START"),
        "{e}"
    );
    assert_eq!(c.verdicts.len(), 2);
}

#[test]
fn a_board_that_never_stops_sending_hits_the_deadline_naming_the_answer() {
    // Noise: bytes that never start a frame, each well within the per-byte timeout.
    let mut b = FakeBoard::new(PIE_HELLO);
    b.flood = vec![0x00; 64];
    let mut c = Client::new(b);
    c.hello().unwrap();
    c.deadline = Duration::from_millis(50);
    let e = c.drain_events(Duration::from_millis(1)).unwrap_err();
    assert!(matches!(e, ClientError::Deadline { .. }), "{e:?}");
    let m = e.to_string();
    assert!(
        m.contains("no end of the events") && m.contains("50 ms"),
        "{m}"
    );
    // 50 ms at 10 us per byte: the client stopped reading.
    assert!(c.transport.received < 6_000, "{}", c.transport.received);

    // Valid verdicts before START: bounded by the deadline too, and memory by the stale bound.
    let mut b = FakeBoard::new(PIE_HELLO);
    b.flood = verdict_frame(1, 500);
    b.mute = true;
    let mut c = Client::new(b);
    c.deadline = Duration::from_millis(20);
    let e = c.hello().unwrap_err().to_string();
    assert!(e.contains("no HELLO_OK") && e.contains("verdicts"), "{e}");
    assert!(c.verdicts.len() < 3000, "{}", c.verdicts.len());
}

#[test]
fn a_bad_pacing_is_refused_before_anything_is_sent() {
    let mut c = Client::new(FakeBoard::new(PIE_HELLO));
    for (pacing, want) in [
        (
            Pacing {
                batch: 0,
                ..Pacing::default()
            },
            "batch 0: expected 1..=32",
        ),
        (
            Pacing {
                gap: Duration::from_micros(u64::MAX),
                ..Pacing::default()
            },
            "expected 0..=10000000 us",
        ),
    ] {
        let e = stream(&mut c, &[], &[(100, 0)], pacing).unwrap_err();
        assert!(e.to_string().contains(want), "{e}");
    }
    assert_eq!(c.transport.received, 0);
}

fn board() -> Client<SimTransport> {
    let mut c = Client::new(SimTransport::new(PIE).unwrap());
    c.timeout = Duration::from_micros(500);
    c
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

#[test]
fn a_refused_register_access_names_the_register_the_value_and_why() {
    let mut c = board();
    c.hello().unwrap();
    c.start().unwrap();
    let refused = |r: Result<u64, ClientError>| match r {
        Err(ClientError::Register { why }) => why,
        other => panic!("expected a refusal, got {other:?}"),
    };
    let w = refused(c.write(addr::LIMIT, 5000));
    assert!(
        w.contains("LIMIT (0x14) = 5000 is out of range: expected 1..=1024"),
        "{w}"
    );
    let w = refused(c.write(addr::PKTS_IN, 1));
    assert!(w.contains("PKTS_IN") && w.contains("read-only"), "{w}");
    let w = refused(c.write(0x7F, 1));
    assert!(w.contains("0x7F") && w.contains("unmapped"), "{w}");
    let w = match c.read(0x7F) {
        Err(ClientError::Register { why }) => why,
        other => panic!("{other:?}"),
    };
    assert!(w.contains("read of 0x7F") && w.contains("unmapped"), "{w}");
    // The generic text is gone.
    let e = c.write(addr::LIMIT, 5000).unwrap_err().to_string();
    assert!(!e.contains("register access rejected by the core"), "{e}");
}

#[test]
fn a_multi_parameter_set_is_checked_whole_and_applied_all_or_nothing() {
    // `seed 0` is refused before anything is sent: the golden core rejects a zero PRNG state.
    let writes = parse_set(PIE, &words("target 20ms seed 0")).unwrap();
    let e = check_writes(PIE, &writes).unwrap_err();
    assert!(e.contains("SEED_HI") && e.contains("zero rejected"), "{e}");
    // And if the board refuses one anyway, what was written before it is put back.
    let mut c = board();
    c.hello().unwrap();
    c.start().unwrap();
    let target = c.read(addr::TARGET_US).unwrap();
    assert_ne!(target, 20_000);
    let e = apply_all(&mut c, PIE, &writes).unwrap_err();
    assert!(
        e.contains("SEED_HI") && e.contains("nothing changed"),
        "{e}"
    );
    assert_eq!(c.read(addr::TARGET_US).unwrap(), target);
    // A good set is applied whole.
    let good = parse_set(PIE, &words("target 20ms seed 5")).unwrap();
    check_writes(PIE, &good).unwrap();
    apply_all(&mut c, PIE, &good).unwrap();
    assert_eq!(c.read(addr::TARGET_US).unwrap(), 20_000);
}

#[test]
fn a_link_rate_the_model_cannot_hold_is_an_error_with_the_range() {
    for rate in ["5000gbit", "1bit", "100kbit"] {
        let e = parse_set(PIE, &words(&format!("link {rate}"))).unwrap_err();
        assert!(
            e.starts_with(&format!("link {rate}:")) && e.contains("expected 122071bit..=4096Gbit"),
            "{e}"
        );
    }
    assert!(parse_set(PIE, &words("link 4096gbit")).is_ok());
    assert_eq!(
        parse_set(PIE, &words("link off")).unwrap(),
        vec![(addr::LINK_BYTE_TIME, 0)]
    );
}

fn host(args: &[&str]) -> (bool, String, String) {
    aqm_testkit::run(env!("CARGO_BIN_EXE_aqm-host"), args)
}

#[test]
fn the_command_line_refuses_values_out_of_range_naming_the_flag() {
    let dir = std::env::temp_dir().join(format!("aqm-host-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("t.trace");
    std::fs::write(&trace, "100 0\n").unwrap();
    let t = trace.display().to_string();
    for (args, want) in [
        (
            vec!["stream", &t, "--gap-us", "18446744073709551615"],
            "--gap-us",
        ),
        (vec!["stream", &t, "--gap-us", "10000001"], "0..=10000000"),
        (vec!["stream", &t, "--batch", "0"], "--batch"),
        (vec!["stream", &t, "--batch", "33"], "1..=32"),
        (vec!["stream", &t, "--set", "target 20ms seed 0"], "SEED_HI"),
        (vec!["set", "target", "20ms", "seed", "0"], "zero rejected"),
        (vec!["set", "link", "5000gbit"], "122071bit..=4096Gbit"),
        (vec!["sim-stream", "mix", "--speed", "1e-9"], "--speed"),
        (vec!["sim-stream", "mix", "--max", "0"], "--max"),
        (vec!["--baud", "0", "hello"], "--baud"),
    ] {
        let mut a = vec!["--sim"];
        a.extend(args.iter());
        let (ok, _, err) = host(&a);
        assert!(!ok, "{args:?}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn nothing_the_user_wrote_reaches_the_terminal_raw() {
    let (ok, _, err) = host(&["--sim", "set", "\u{1b}[2Jfly", "2"]);
    assert!(!ok);
    assert!(!err.contains('\u{1b}'), "{err:?}");
    assert!(err.contains("\\u{1b}[2Jfly"), "{err}");
    let (ok, _, err) = host(&["--sim", "stream", "/nonexistent/\u{7}bell"]);
    assert!(
        !ok && !err.contains('\u{7}') && err.contains("cannot read"),
        "{err:?}"
    );
}

#[test]
fn counters_at_their_largest_are_shown_without_overflow() {
    use aqm_golden::dualpi2::kind::DUALPI2_CORE;
    use aqm_host::tc::{format_json, format_show, shown};
    for core in [PIE, &DUALPI2_CORE as Core] {
        let v = vec![u32::MAX; shown(core).len()];
        let text = format_show(core, &v);
        // Two 64-bit byte counters of 2^64 - 1 each: saturated, not wrapped.
        assert!(text.contains("Sent "), "{text}");
        assert!(format_json(core, &v).starts_with("[{"));
    }
}
