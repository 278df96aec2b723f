//! The host tool against the Verilated board tops (the PIE and the DualPI2 line card), UART included, bit
//! for bit.

use aqm_golden::dualpi2;
use aqm_golden::dualpi2::kind::DUALPI2_CORE;
use aqm_golden::pie::kind::PIE_CORE;
use aqm_golden::pie::regs::{addr, PIE_ID};
use aqm_host::board_core::{from_id, Core};
use aqm_host::client::{Client, ClientError};
use aqm_host::stream::{check_stream, stream, Pacing};
use aqm_host::tc::parse_set;
use aqm_host::transport::SimTransport;
use aqm_protocol::{cmd, crc8, Descriptor, ErrorCode, Frame};
use std::time::Duration;

const PIE: Core = &PIE_CORE;
const DUALPI2: Core = &DUALPI2_CORE;

fn board_with(core: Core) -> Client<SimTransport> {
    let mut c = Client::new(SimTransport::new(core).unwrap());
    c.timeout = Duration::from_micros(500);
    c
}

fn board() -> Client<SimTransport> {
    board_with(PIE)
}

#[test]
fn hello_reports_the_pie_core() {
    let mut c = board();
    let i = c.hello().unwrap();
    assert_eq!(i.core_id, PIE_ID);
    assert_eq!(
        (
            i.ns_per_cycle,
            i.cycles_per_bit,
            i.capacity,
            i.verdict_latency
        ),
        (
            aqm_board_verilated::VerilatedBoard::pie().ns_per_cycle() as u32,
            aqm_board_verilated::BOARD_SIM_CPB as u16,
            1024,
            5
        )
    );
}

#[test]
fn registers_round_trip() {
    let mut c = board();
    c.start().unwrap();
    for (a, v) in parse_set(
        PIE,
        &"target 20ms tupdate 10ms alpha 3 beta 17 limit 500 ecn mtu 1500 link 100mbit"
            .split_whitespace()
            .map(String::from)
            .collect::<Vec<_>>(),
    )
    .unwrap()
    {
        c.write(a, v).unwrap();
        assert_eq!(c.read(a).unwrap(), v, "register 0x{a:02X}");
    }
    assert_eq!(c.read(addr::ID).unwrap(), PIE_ID);
}

#[test]
fn hello_reports_the_dualpi2_core() {
    let mut c = board_with(DUALPI2);
    let i = c.hello().unwrap();
    assert_eq!(from_id(i.core_id), Ok(DUALPI2));
    assert_eq!(
        (i.capacity, i.verdict_latency as u64),
        (
            dualpi2::consts::HW_QUEUE_CAPACITY as u16,
            dualpi2::consts::VERDICT_LATENCY
        )
    );
}

#[test]
fn dualpi2_registers_round_trip_with_its_tc_words() {
    let mut c = board_with(DUALPI2);
    // HELLO names the core, whose register table explains a refusal.
    c.hello().unwrap();
    c.start().unwrap();
    for (a, v) in parse_set(DUALPI2,
        &words(
            "target 20ms tupdate 10ms alpha 0.12 beta 2.75 coupling_factor 3 step_thresh 2ms \
             min_qlen_step 4 any_ect overflow limit 500 mtu 1500 classic_protection 25 link 100mbit",
        ),
    )
    .unwrap()
    {
        c.write(a, v).unwrap();
        assert_eq!(c.read(a).unwrap(), v, "register 0x{a:02X}");
    }
    assert_eq!(
        c.read(dualpi2::regs::addr::ID).unwrap(),
        dualpi2::regs::DUALPI2_ID
    );
    assert_eq!(c.read(dualpi2::regs::addr::CAPACITY).unwrap(), 512);
    // Beyond the two queues' 1024 descriptors: the core refuses it and keeps what it had.
    match c.write(dualpi2::regs::addr::LIMIT, 1025) {
        Err(ClientError::Register { why }) => {
            assert!(why.contains("LIMIT") && why.contains("1..=1024"), "{why}")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!(c.read(dualpi2::regs::addr::LIMIT).unwrap(), 500);
}

fn expect_error(r: Result<aqm_protocol::Message, ClientError>, code: ErrorCode) {
    match r {
        Err(ClientError::Board { code: c, .. }) => assert_eq!(c, code as u8, "{r:?}"),
        other => panic!("expected {code:?}, got {other:?}"),
    }
}

#[test]
fn bad_frames_are_answered_with_errors_and_change_nothing() {
    let mut c = board();
    c.start().unwrap();
    c.write(addr::LIMIT, 321).unwrap();
    // Wrong CRC on a write of LIMIT.
    let mut f = Frame::new(cmd::WRITE, vec![addr::LIMIT, 7, 0, 0, 0]).encode();
    *f.last_mut().unwrap() ^= 0x5A;
    expect_error(c.raw(&f), ErrorCode::BadCrc);
    // Truncated: a header and half a payload, then silence.
    expect_error(
        c.raw(&Frame::new(cmd::WRITE, vec![addr::LIMIT, 9, 0, 0, 0]).encode()[..5]),
        ErrorCode::Truncated,
    );
    // Unknown command.
    expect_error(
        c.raw(&Frame::new(0x42, vec![]).encode()),
        ErrorCode::UnknownCommand,
    );
    // Wrong payload length for WRITE.
    expect_error(
        c.raw(&Frame::new(cmd::WRITE, vec![addr::LIMIT, 1]).encode()),
        ErrorCode::BadPayload,
    );
    // Out-of-range value, read-only register, unmapped address.
    for (a, v) in [
        (addr::LIMIT, 5000),
        (addr::ALPHA, 33),
        (addr::PKTS_IN, 1),
        (0x7F, 1),
    ] {
        let mut p = vec![a];
        p.extend(aqm_protocol::le(v, 4));
        expect_error(
            c.raw(&Frame::new(cmd::WRITE, p).encode()),
            ErrorCode::RegisterRejected,
        );
    }
    expect_error(
        c.raw(&Frame::new(cmd::READ, vec![0x7F]).encode()),
        ErrorCode::RegisterRejected,
    );
    // Nothing changed.
    assert_eq!(c.read(addr::LIMIT).unwrap(), 321);
    assert_eq!(c.read(addr::ALPHA).unwrap(), 2);
    // And the board still works.
    assert!(c.hello().is_ok());
    let _ = crc8(&[]);
}

#[test]
fn an_inject_frame_that_is_not_whole_descriptors_is_refused_and_injects_nothing() {
    let mut c = board();
    c.start().unwrap();
    // INJECT carries 1 to 32 descriptors of 5 bytes: anything else is a bad payload.
    for len in [0usize, 4, 7, 11, 159, 165, 255] {
        expect_error(
            c.raw(&Frame::new(cmd::INJECT, vec![0x40; len]).encode()),
            ErrorCode::BadPayload,
        );
    }
    assert_eq!(c.read(addr::PKTS_IN).unwrap(), 0);
    // Whole descriptors are taken, the longest frame included.
    let d = Descriptor {
        len: 64,
        ecn: 0,
        tag: 1,
    };
    c.inject(&[d; 32]).unwrap();
    assert_eq!(c.read(addr::PKTS_IN).unwrap(), 32);
}

#[test]
fn injected_descriptors_get_verdicts_and_depart() {
    let mut c = board();
    c.start().unwrap();
    let d: Vec<Descriptor> = (0..20)
        .map(|k| Descriptor {
            len: 100 + k,
            ecn: (k % 4) as u8,
            tag: k,
        })
        .collect();
    c.inject(&d).unwrap();
    c.drain_events(Duration::from_micros(300)).unwrap();
    assert_eq!(c.verdicts.len(), 20);
    assert_eq!(c.departures.len(), 20);
    assert!(c
        .verdicts
        .iter()
        .enumerate()
        .all(|(k, v)| v.tag == k as u16 && v.code == 0));
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

#[test]
fn a_burst_streamed_as_fast_as_the_uart_goes_matches_the_golden_model() {
    let mut c = board();
    let params = parse_set(PIE, &words("limit 60 link 20mbit")).unwrap();
    let descs: Vec<(u16, u8)> = (0..300u32)
        .map(|k| ((64 + k * 37 % 1455) as u16, (k % 4) as u8))
        .collect();
    let rec = stream(&mut c, &params, &descs, Pacing::default()).unwrap();
    let s = check_stream(&rec, &descs).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.verdicts, 300);
    assert!(s.by_code[0] > 0 && s.by_code[3] > 0, "{s:?}");
}

#[test]
fn a_paced_stream_past_the_burst_allowance_is_marked_and_dropped_like_the_golden_model() {
    let mut c = board();
    // prob held at 9 % (the first update comes 500 ms after START); the link drains 1.25 kB per ms while
    // 4 packets arrive every ms, so the queue builds, and after 150 ms of dequeues the burst allowance
    // is gone: ECN-capable packets are marked, the others dropped early.
    let params = parse_set(PIE, &words("limit 1000 ecn link 10mbit prob 9%")).unwrap();
    // The board admits a descriptor only when its event buffers have room for everything the core
    // holds, so on this slow link an INJECT waits for departures.
    c.timeout = Duration::from_millis(50);
    let descs: Vec<(u16, u8)> = (0..720u32)
        .map(|k| ((200 + k * 37 % 1300) as u16, (k % 4) as u8))
        .collect();
    let pacing = Pacing {
        batch: 4,
        gap: Duration::from_millis(1),
        drain: Duration::from_millis(5),
    };
    let rec = stream(&mut c, &params, &descs, pacing).unwrap();
    let s = check_stream(&rec, &descs).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{s:?}");
    assert!(s.by_code[1] >= 5 && s.by_code[2] >= 2, "{s:?}");
}

#[test]
fn a_dualpi2_burst_with_drops_and_marks_at_dequeue_matches_the_golden_model() {
    let mut c = board_with(DUALPI2);
    // p' held at 50 % (the first update comes 16 ms after START): C packets are dropped at dequeue with
    // p'^2 = 25 %, L packets (ECT(1) and CE) marked with k p' = 100 %; the limit makes tail drops.
    let params = parse_set(DUALPI2, &words("limit 40 link 20mbit prob 50%")).unwrap();
    c.timeout = Duration::from_millis(50);
    let descs: Vec<(u16, u8)> = (0..200u32)
        .map(|k| ((64 + k * 37 % 1455) as u16, (k % 4) as u8))
        .collect();
    let rec = stream(&mut c, &params, &descs, Pacing::default()).unwrap();
    let s = check_stream(&rec, &descs).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((s.core, s.verdicts), (DUALPI2, 200));
    assert!(s.by_code[0] > 0 && s.by_code[3] > 0, "{s:?}");
    assert!(s.to_l > 0 && s.to_l < s.verdicts, "{s:?}");
    assert!(s.dequeue_drops > 0 && s.fates.marked > 0, "{s:?}");
}
