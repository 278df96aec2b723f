//! The line card's test-port protocol over the USB-UART.
//!
//! Every frame, in both directions:
//!
//! ```text
//! 0xA5 | LEN | CMD | PAYLOAD (LEN bytes) | CRC
//! ```
//! CRC is CRC-8 (polynomial x^8 + x^2 + x + 1, 0x07, initial value 0) over LEN, CMD and PAYLOAD. Numbers
//! in payloads are little-endian. The host sends one command and waits for its response before the next;
//! the board answers every frame exactly once, with the command's response or an ERROR frame, and a frame
//! answered with an error has changed nothing. Between responses the board sends events (verdicts,
//! departures) as they happen. [`TABLE`] documents every message; `bsp/PROTOCOL.md` is generated from it.
//!
//! Times are ns since the last START (the core's reset cycle, time 0); the core's `now` advances by
//! `ns_per_cycle` (HELLO) every clock cycle. With the reported times (START, every WRITE, every verdict,
//! which comes a fixed latency after its descriptor was accepted, or for a PIE bytemode packet 13 cycles
//! more: its multiplier holds the pipeline) the host can rebuild the core's input
//! on every cycle and check the board against
//! the golden cycle model: the board keeps the core's `out_ready` high and admits a descriptor only when
//! its event buffers have room for everything the core may still report, so nothing else varies.

use std::fmt;

/// First byte of every frame.
pub const SYNC: u8 = 0xA5;
/// Protocol version reported by HELLO.
pub const VERSION: u8 = 1;
/// Descriptors per INJECT frame, at most.
pub const MAX_INJECT: usize = 32;
/// Bytes per descriptor in INJECT: len (2), ecn (1), tag (2).
pub const DESCRIPTOR_BYTES: usize = 5;

/// Command and response codes.
pub mod cmd {
    pub const HELLO: u8 = 0x01;
    pub const READ: u8 = 0x02;
    pub const WRITE: u8 = 0x03;
    pub const START: u8 = 0x04;
    pub const INJECT: u8 = 0x05;
    /// A response is its command with the top bit set.
    pub const RESPONSE: u8 = 0x80;
    pub const VERDICT: u8 = 0x90;
    pub const DEPART: u8 = 0x91;
    pub const ERROR: u8 = 0xEE;
}

/// Error codes of an ERROR frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    /// The CRC did not match.
    BadCrc = 1,
    /// The frame stopped before its end (no byte for 128 bit times, about 13 byte times).
    Truncated = 2,
    /// Unknown command code.
    UnknownCommand = 3,
    /// The payload length does not fit the command.
    BadPayload = 4,
    /// The core refused the register access (out of range, read-only, unmapped, or busy).
    RegisterRejected = 5,
}

impl ErrorCode {
    pub fn from_u8(v: u8) -> Option<ErrorCode> {
        Some(match v {
            1 => ErrorCode::BadCrc,
            2 => ErrorCode::Truncated,
            3 => ErrorCode::UnknownCommand,
            4 => ErrorCode::BadPayload,
            5 => ErrorCode::RegisterRejected,
            _ => return None,
        })
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorCode::BadCrc => "bad CRC",
            ErrorCode::Truncated => "truncated frame",
            ErrorCode::UnknownCommand => "unknown command",
            ErrorCode::BadPayload => "bad payload length",
            ErrorCode::RegisterRejected => "register access rejected by the core",
        })
    }
}

/// CRC-8 with polynomial 0x07, one byte.
pub fn crc8_byte(crc: u8, byte: u8) -> u8 {
    let mut c = crc ^ byte;
    for _ in 0..8 {
        c = if c & 0x80 != 0 {
            (c << 1) ^ 0x07
        } else {
            c << 1
        };
    }
    c
}

/// CRC-8 of a byte string.
pub fn crc8(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0, |c, &b| crc8_byte(c, b))
}

/// A frame's command and payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub cmd: u8,
    pub payload: Vec<u8>,
}

impl Frame {
    pub fn new(cmd: u8, payload: Vec<u8>) -> Frame {
        Frame { cmd, payload }
    }

    /// The frame on the wire. Payloads longer than 255 bytes cannot be framed.
    pub fn encode(&self) -> Vec<u8> {
        assert!(
            self.payload.len() <= 255,
            "payload of {} bytes",
            self.payload.len()
        );
        let mut v = vec![SYNC, self.payload.len() as u8, self.cmd];
        v.extend_from_slice(&self.payload);
        v.push(crc8(&v[1..]));
        v
    }
}

/// What a [`Decoder`] found in the byte stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decoded {
    Frame(Frame),
    /// A complete frame whose CRC did not match (it is discarded).
    BadCrc {
        cmd: u8,
    },
}

/// Reassembles frames from a byte stream; bytes outside frames are skipped. A complete frame whose CRC
/// does not match is reported ([`Decoded::BadCrc`]) and its bytes after its sync are scanned again: a
/// sync byte in garbage starts a false frame that may hold the start of real ones, and without the
/// rescan a stream could stay out of step with its frames for good.
#[derive(Default)]
pub struct Decoder {
    buf: Vec<u8>,
    /// What the last bytes completed, oldest first; [`Decoder::push`] hands out one at a time.
    ready: std::collections::VecDeque<Decoded>,
}

impl Decoder {
    pub fn new() -> Decoder {
        Decoder::default()
    }

    /// Feeds one byte; returns a frame when this byte completes one. A rescan may complete more than
    /// one: they come out one per call, the rest from [`Decoder::pop`].
    pub fn push(&mut self, b: u8) -> Option<Decoded> {
        self.scan(b);
        self.ready.pop_front()
    }

    /// A frame that is complete but not yet handed out (after a rescan that completed several).
    pub fn pop(&mut self) -> Option<Decoded> {
        self.ready.pop_front()
    }

    fn scan(&mut self, b: u8) {
        if self.buf.is_empty() && b != SYNC {
            return;
        }
        self.buf.push(b);
        if self.buf.len() < 3 || self.buf.len() < 4 + self.buf[1] as usize {
            return;
        }
        let bytes = std::mem::take(&mut self.buf);
        let n = bytes[1] as usize;
        let cmd = bytes[2];
        if crc8(&bytes[1..3 + n]) == bytes[3 + n] {
            self.ready
                .push_back(Decoded::Frame(Frame::new(cmd, bytes[3..3 + n].to_vec())));
            return;
        }
        self.ready.push_back(Decoded::BadCrc { cmd });
        // Each rescan is shorter than the frame it rescans, so this ends.
        for &x in &bytes[1..] {
            self.scan(x);
        }
    }

    /// Bytes of an unfinished frame (a truncated frame if the stream has stopped).
    pub fn pending(&self) -> usize {
        self.buf.len()
    }

    pub fn clear(&mut self) {
        self.buf.clear();
        self.ready.clear();
    }
}

/// Little-endian helpers for payloads.
pub fn le(v: u64, n: usize) -> Vec<u8> {
    (0..n).map(|k| (v >> (8 * k)) as u8).collect()
}

/// Reads an `n`-byte little-endian number at `at`; `None` past the end.
pub fn read_le(p: &[u8], at: usize, n: usize) -> Option<u64> {
    let s = p.get(at..at + n)?;
    Some(s.iter().rev().fold(0u64, |a, &b| a << 8 | b as u64))
}

/// A descriptor for INJECT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Descriptor {
    pub len: u16,
    pub ecn: u8,
    pub tag: u16,
}

/// INJECT's payload.
pub fn inject_payload(d: &[Descriptor]) -> Vec<u8> {
    let mut v = Vec::with_capacity(d.len() * DESCRIPTOR_BYTES);
    for x in d {
        v.extend(le(x.len as u64, 2));
        v.push(x.ecn & 3);
        v.extend(le(x.tag as u64, 2));
    }
    v
}

/// A request from the host, typed: [`Request::frame`] is its frame (the counterpart of
/// [`Message::decode`] for the board's frames).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    Hello,
    Read {
        addr: u8,
    },
    Write {
        addr: u8,
        value: u32,
    },
    Start,
    /// 1..=[`MAX_INJECT`] descriptors.
    Inject(Vec<Descriptor>),
}

/// A request that has no frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequestError {
    /// INJECT takes 1..=[`MAX_INJECT`] descriptors.
    InjectCount(usize),
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestError::InjectCount(n) => {
                write!(f, "INJECT takes 1 to {MAX_INJECT} descriptors, not {n}")
            }
        }
    }
}

impl std::error::Error for RequestError {}

impl Request {
    /// The command code.
    pub fn cmd(&self) -> u8 {
        match self {
            Request::Hello => cmd::HELLO,
            Request::Read { .. } => cmd::READ,
            Request::Write { .. } => cmd::WRITE,
            Request::Start => cmd::START,
            Request::Inject(_) => cmd::INJECT,
        }
    }

    /// The request's frame.
    pub fn frame(&self) -> Result<Frame, RequestError> {
        let payload = match self {
            Request::Hello | Request::Start => vec![],
            Request::Read { addr } => vec![*addr],
            Request::Write { addr, value } => [vec![*addr], le(*value as u64, 4)].concat(),
            Request::Inject(d) if (1..=MAX_INJECT).contains(&d.len()) => inject_payload(d),
            Request::Inject(d) => return Err(RequestError::InjectCount(d.len())),
        };
        Ok(Frame::new(self.cmd(), payload))
    }

    /// The request on the wire.
    pub fn encode(&self) -> Result<Vec<u8>, RequestError> {
        Ok(self.frame()?.encode())
    }

    /// A frame from the host, decoded as the board reads it; `None` when the board answers it with an
    /// ERROR (unknown command, or a payload length that does not fit the command).
    pub fn decode(f: &Frame) -> Option<Request> {
        let p = &f.payload;
        Some(match (f.cmd, p.len()) {
            (cmd::HELLO, 0) => Request::Hello,
            (cmd::READ, 1) => Request::Read { addr: p[0] },
            (cmd::WRITE, 5) => Request::Write {
                addr: p[0],
                value: read_le(p, 1, 4)? as u32,
            },
            (cmd::START, 0) => Request::Start,
            (cmd::INJECT, n)
                if n > 0
                    && n <= MAX_INJECT * DESCRIPTOR_BYTES
                    && n.is_multiple_of(DESCRIPTOR_BYTES) =>
            {
                Request::Inject(
                    p.chunks(DESCRIPTOR_BYTES)
                        .map(|c| Descriptor {
                            len: u16::from_le_bytes([c[0], c[1]]),
                            ecn: c[2] & 3,
                            tag: u16::from_le_bytes([c[3], c[4]]),
                        })
                        .collect(),
                )
            }
            _ => return None,
        })
    }
}

/// The board's facts, as HELLO_OK gives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardInfo {
    /// The protocol version.
    pub version: u8,
    /// The core's ID register.
    pub core_id: u32,
    /// The core's time step: ns per clock cycle.
    pub ns_per_cycle: u32,
    /// Core clock cycles per UART bit.
    pub cycles_per_bit: u16,
    /// Descriptors the core holds.
    pub capacity: u16,
    /// Events the bridge buffers.
    pub event_depth: u16,
    /// Cycles from a descriptor's acceptance to its verdict.
    pub verdict_latency: u8,
}

/// A descriptor that left the core (a DEPART event): its ECN as it left, whether it was dropped at
/// dequeue, its queue and its sojourn time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Departure {
    pub tag: u16,
    pub len: u16,
    pub ecn: u8,
    pub dropped: bool,
    pub queue: u8,
    pub sojourn_ns: u64,
}

/// A message from the board, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    Hello(BoardInfo),
    ReadOk {
        addr: u8,
        value: u32,
    },
    /// The core took the write at `time` ns.
    WriteOk {
        addr: u8,
        time: u64,
    },
    StartOk,
    InjectOk {
        count: u8,
    },
    /// A descriptor's verdict: the core's 2-bit verdict code (and, from the DualPI2 core, its class) and
    /// the time (ns) it came out, `verdict_latency` cycles after the descriptor was accepted (a PIE
    /// bytemode packet of at most MTU bytes: 13 cycles more).
    Verdict {
        tag: u16,
        code: u8,
        queue: u8,
        time: u64,
    },
    /// A descriptor left the core.
    Depart(Departure),
    Error {
        cmd: u8,
        code: u8,
    },
}

impl Message {
    /// Decodes a frame from the board; `None` when its command or payload length is not one of ours.
    pub fn decode(f: &Frame) -> Option<Message> {
        let p = &f.payload;
        let n = |at, len| read_le(p, at, len);
        let exact = |len: usize| p.len() == len;
        Some(match f.cmd {
            c if c == cmd::HELLO | cmd::RESPONSE && exact(16) => Message::Hello(BoardInfo {
                version: p[0],
                core_id: n(1, 4)? as u32,
                ns_per_cycle: n(5, 4)? as u32,
                cycles_per_bit: n(9, 2)? as u16,
                capacity: n(11, 2)? as u16,
                event_depth: n(13, 2)? as u16,
                verdict_latency: p[15],
            }),
            c if c == cmd::READ | cmd::RESPONSE && exact(5) => Message::ReadOk {
                addr: p[0],
                value: n(1, 4)? as u32,
            },
            c if c == cmd::WRITE | cmd::RESPONSE && exact(6) => Message::WriteOk {
                addr: p[0],
                time: n(1, 5)?,
            },
            c if c == cmd::START | cmd::RESPONSE && exact(0) => Message::StartOk,
            c if c == cmd::INJECT | cmd::RESPONSE && exact(1) => Message::InjectOk { count: p[0] },
            cmd::VERDICT if exact(8) => Message::Verdict {
                tag: n(0, 2)? as u16,
                code: p[2] & 3,
                queue: p[2] >> 2 & 1,
                time: n(3, 5)?,
            },
            cmd::DEPART if exact(10) => Message::Depart(Departure {
                tag: n(0, 2)? as u16,
                len: n(2, 2)? as u16,
                ecn: p[4] & 3,
                dropped: p[4] & 4 != 0,
                queue: p[4] >> 3 & 1,
                sojourn_ns: n(5, 5)?,
            }),
            cmd::ERROR if exact(2) => Message::Error {
                cmd: p[0],
                code: p[1],
            },
            _ => return None,
        })
    }
}

/// One row of the protocol's documentation.
pub struct MessageDoc {
    pub name: &'static str,
    pub direction: &'static str,
    pub cmd: u8,
    pub payload: &'static str,
    pub doc: &'static str,
}

/// Every message, for `bsp/PROTOCOL.md`.
pub const TABLE: &[MessageDoc] = &[
    MessageDoc { name: "HELLO", direction: "host -> board", cmd: cmd::HELLO, payload: "(none)", doc: "who is there" },
    MessageDoc { name: "HELLO_OK", direction: "board -> host", cmd: cmd::HELLO | cmd::RESPONSE, payload: "version u8, core_id u32 (the core's ID register), ns_per_cycle u32 (the core's time step), cycles_per_bit u16, capacity u16 (descriptor FIFO), event_depth u16, verdict_latency u8 (cycles)", doc: "answer to HELLO" },
    MessageDoc { name: "READ", direction: "host -> board", cmd: cmd::READ, payload: "addr u8", doc: "read a core register" },
    MessageDoc { name: "READ_OK", direction: "board -> host", cmd: cmd::READ | cmd::RESPONSE, payload: "addr u8, value u32", doc: "the value (an unmapped address gives ERROR 5)" },
    MessageDoc { name: "WRITE", direction: "host -> board", cmd: cmd::WRITE, payload: "addr u8, value u32", doc: "write a core register" },
    MessageDoc { name: "WRITE_OK", direction: "board -> host", cmd: cmd::WRITE | cmd::RESPONSE, payload: "addr u8, time u40 (ns)", doc: "taken by the core at that time (a refused write gives ERROR 5 and changes nothing)" },
    MessageDoc { name: "START", direction: "host -> board", cmd: cmd::START, payload: "(none)", doc: "reset the core (parameters included) and the clock: the reset cycle is time 0" },
    MessageDoc { name: "START_OK", direction: "board -> host", cmd: cmd::START | cmd::RESPONSE, payload: "(none)", doc: "done" },
    MessageDoc { name: "INJECT", direction: "host -> board", cmd: cmd::INJECT, payload: "1..=32 x (len u16, ecn u8, tag u16)", doc: "offer descriptors to the core's ingress, in order" },
    MessageDoc { name: "INJECT_OK", direction: "board -> host", cmd: cmd::INJECT | cmd::RESPONSE, payload: "count u8", doc: "all were accepted by the core" },
    MessageDoc { name: "VERDICT", direction: "board -> host", cmd: cmd::VERDICT, payload: "tag u16, code u8 (bits 1:0 verdict 0 enqueue 1 mark 2 early drop 3 tail drop; bit 2 queue L), time u40 (ns; the descriptor was accepted verdict_latency cycles earlier, a PIE bytemode packet of at most MTU bytes 13 cycles more)", doc: "event: one per accepted descriptor" },
    MessageDoc { name: "DEPART", direction: "board -> host", cmd: cmd::DEPART, payload: "tag u16, len u16, flags u8 (bits 1:0 ECN as it left, bit 2 dropped at dequeue, bit 3 queue L), sojourn u40 (ns)", doc: "event: one per enqueued descriptor" },
    MessageDoc { name: "ERROR", direction: "board -> host", cmd: cmd::ERROR, payload: "cmd u8, code u8 (1 bad CRC, 2 truncated, 3 unknown command, 4 bad payload length, 5 register access rejected)", doc: "the frame changed nothing" },
];

/// The protocol as Markdown.
pub fn markdown() -> String {
    let mut s = String::from(
        "# Line card test-port protocol\n\nGenerated from `bsp/protocol/src/lib.rs` (`cargo run -p aqm-bsp --bin \
         aqm-bitstream -- --docs`); a test fails when this file and the code disagree.\n\n\
         UART 8N1 at 1 Mbaud (FPGA input usb_rx P14, output usb_tx M9). Every frame in both \
         directions is `0xA5 | LEN | CMD | PAYLOAD | CRC`, CRC-8 (polynomial 0x07, initial 0) over LEN, CMD \
         and PAYLOAD; numbers are little-endian. The host sends one command and waits for its answer; the \
         board answers every frame exactly once and an ERROR answer means nothing changed. A frame that \
         stops for 128 bit times (about 13 byte times) is answered with ERROR 2. Events arrive between answers.\n\n\
         | message | direction | code | payload | meaning |\n|---|---|---|---|---|\n",
    );
    for m in TABLE {
        s.push_str(&format!(
            "| {} | {} | 0x{:02X} | {} | {} |\n",
            m.name, m.direction, m.cmd, m.payload, m.doc
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc8_matches_the_atm_check_value() {
        // CRC-8 (poly 0x07, init 0, no reflection, no final xor): check value of "123456789" is 0xF4.
        assert_eq!(crc8(b"123456789"), 0xF4);
    }

    #[test]
    fn frames_round_trip_through_the_decoder() {
        let f = Frame::new(cmd::WRITE, vec![0x10, 1, 2, 3, 4]);
        let mut d = Decoder::new();
        let mut out = vec![];
        for b in [0x00, 0x13].into_iter().chain(f.encode()) {
            if let Some(x) = d.push(b) {
                out.push(x);
            }
        }
        assert_eq!(out, vec![Decoded::Frame(f)]);
    }

    #[test]
    fn a_corrupted_frame_is_reported_not_delivered() {
        let mut bytes = Frame::new(cmd::READ, vec![0x20]).encode();
        bytes[3] ^= 1;
        let mut d = Decoder::new();
        let got: Vec<_> = bytes.iter().filter_map(|&b| d.push(b)).collect();
        assert_eq!(got, vec![Decoded::BadCrc { cmd: cmd::READ }]);
    }

    #[test]
    fn events_decode() {
        let v = Frame::new(
            cmd::VERDICT,
            [le(0x1234, 2), vec![0b110], le(99, 5)].concat(),
        );
        assert_eq!(
            Message::decode(&v),
            Some(Message::Verdict {
                tag: 0x1234,
                code: 2,
                queue: 1,
                time: 99
            })
        );
        let d = Frame::new(
            cmd::DEPART,
            [le(7, 2), le(1500, 2), vec![0b1111], le(12345, 5)].concat(),
        );
        assert_eq!(
            Message::decode(&d),
            Some(Message::Depart(Departure {
                tag: 7,
                len: 1500,
                ecn: 3,
                dropped: true,
                queue: 1,
                sojourn_ns: 12345
            }))
        );
        assert_eq!(Message::decode(&Frame::new(cmd::VERDICT, vec![1, 2])), None);
    }

    #[test]
    fn requests_round_trip_and_match_the_hand_built_frames() {
        let d = |k: u16| Descriptor {
            len: 64 + k,
            ecn: (k % 4) as u8,
            tag: 0x100 + k,
        };
        let reqs = [
            Request::Hello,
            Request::Read { addr: 0x21 },
            Request::Write {
                addr: 0x10,
                value: 0x1234_5678,
            },
            Request::Start,
            Request::Inject(vec![d(0)]),
            Request::Inject((0..MAX_INJECT as u16).map(d).collect()),
        ];
        for r in &reqs {
            let f = r.frame().unwrap();
            assert_eq!(Request::decode(&f).as_ref(), Some(r));
            assert_eq!(r.encode().unwrap(), f.encode());
        }
        assert_eq!(
            reqs[2].encode().unwrap(),
            Frame::new(cmd::WRITE, vec![0x10, 0x78, 0x56, 0x34, 0x12]).encode()
        );
        assert_eq!(
            reqs[4].frame().unwrap(),
            Frame::new(cmd::INJECT, inject_payload(&[d(0)]))
        );
    }

    #[test]
    fn an_inject_of_no_or_too_many_descriptors_is_an_error() {
        let d = Descriptor {
            len: 64,
            ecn: 0,
            tag: 1,
        };
        for n in [0, MAX_INJECT + 1, 60] {
            let e = Request::Inject(vec![d; n]).encode().unwrap_err();
            assert_eq!(e, RequestError::InjectCount(n));
            assert!(e.to_string().contains(&n.to_string()));
        }
        // What the board refuses does not decode either.
        for f in [
            Frame::new(cmd::HELLO, vec![0]),
            Frame::new(cmd::READ, vec![]),
            Frame::new(cmd::WRITE, vec![1, 2, 3, 4]),
            Frame::new(cmd::INJECT, vec![0; 7]),
            Frame::new(cmd::INJECT, vec![0; 165]),
            Frame::new(0x42, vec![]),
        ] {
            assert_eq!(Request::decode(&f), None, "{f:?}");
        }
    }
}
