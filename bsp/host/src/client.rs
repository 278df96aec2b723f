//! The protocol client: one command at a time, events collected on the way.
//!
//! Every number the board sends is checked where it enters: HELLO's fields against their ranges (and
//! the core's golden description), each event's time against the board time since START, the number of
//! events against the descriptors injected; and every read loop has a deadline, so a board that floods
//! events or noise is an error naming what was being waited for, not a hang or unbounded memory.

use crate::board_core::{from_id, Core};
use crate::transport::Transport;
use crate::writes::why_refused;
use aqm_protocol::{Decoded, Decoder, Descriptor, ErrorCode, Message, Request, RequestError};
use std::fmt;
use std::time::Duration;

/// HELLO's ns per cycle: 1 GHz to 1 MHz.
pub const NS_PER_CYCLE_RANGE: (u32, u32) = (1, 1000);

/// Board time the client waits for one answer, events included, by default.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(60);

/// Events the board may still send from before the first START (a previous session's queue).
const STALE_EVENTS: usize = 1 << 16;

/// What can go wrong talking to the board.
#[derive(Debug)]
pub enum ClientError {
    Io(std::io::Error),
    /// No complete answer within the timeout.
    Timeout {
        waiting_for: &'static str,
    },
    /// The board answered with an ERROR frame.
    Board {
        cmd: u8,
        code: u8,
    },
    /// A frame from the board had a bad CRC or an unexpected shape.
    Garbled(String),
    /// The request has no frame (an INJECT of too many descriptors); nothing was sent.
    Request(RequestError),
    /// The core refused a register access: which, and why (from the register table and the golden
    /// model).
    Register {
        why: String,
    },
    /// The board sent a number outside its range (a HELLO field, an event's time, more events than
    /// descriptors).
    Implausible(String),
    /// The board kept sending for longer than the client's deadline without the answer.
    Deadline {
        waiting_for: &'static str,
        after: Duration,
        verdicts: usize,
        departures: usize,
    },
    /// A request the host refuses to send (a bad pacing); nothing was sent.
    Input(String),
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Io(e) => write!(f, "transport: {e}"),
            ClientError::Timeout { waiting_for } => {
                write!(f, "no answer from the board ({waiting_for})")
            }
            ClientError::Board { cmd, code } => {
                let why = ErrorCode::from_u8(*code)
                    .map_or_else(|| format!("error {code}"), |c| c.to_string());
                write!(f, "the board refused command 0x{cmd:02X}: {why}")
            }
            ClientError::Garbled(s) => write!(f, "garbled frame from the board: {s}"),
            ClientError::Request(e) => write!(f, "cannot send: {e}"),
            ClientError::Register { why } => write!(f, "the core refused the register access: {why}"),
            ClientError::Implausible(s) => write!(f, "the board sent an impossible value: {s}"),
            ClientError::Deadline {
                waiting_for,
                after,
                verdicts,
                departures,
            } => write!(
                f,
                "no {waiting_for} from the board within {} ms of board time (it kept sending: {verdicts} \
                 verdicts and {departures} departures collected)",
                after.as_millis()
            ),
            ClientError::Input(s) => write!(f, "{s}"),
        }
    }
}

impl std::error::Error for ClientError {}

impl From<std::io::Error> for ClientError {
    fn from(e: std::io::Error) -> Self {
        ClientError::Io(e)
    }
}

/// Board facts from HELLO.
pub use aqm_protocol::BoardInfo;

/// A verdict event: the descriptor's tag, the 2-bit code, the queue, and when it was accepted (ns since
/// START).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerdictEvent {
    pub tag: u16,
    pub code: u8,
    pub queue: u8,
    pub accepted_ns: u64,
}

/// A departure event, as the board's DEPART frame reports it.
pub use aqm_protocol::Departure as DepartEvent;

/// The client.
pub struct Client<T: Transport> {
    pub transport: T,
    decoder: Decoder,
    pub info: Option<BoardInfo>,
    /// The board's core, from HELLO's core ID (explains a refused register access).
    pub core: Option<Core>,
    pub verdicts: Vec<VerdictEvent>,
    pub departures: Vec<DepartEvent>,
    /// Board time to wait for each byte of an answer.
    pub timeout: Duration,
    /// Board time to wait for one whole answer, however many events come before it.
    pub deadline: Duration,
    /// The transport's time when START was answered (None before the first START).
    started: Option<Duration>,
    /// Descriptors sent since START (an upper bound: those of raw frames count by their bytes).
    injected: usize,
}

impl<T: Transport> Client<T> {
    pub fn new(transport: T) -> Client<T> {
        Client {
            transport,
            decoder: Decoder::new(),
            info: None,
            core: None,
            verdicts: vec![],
            departures: vec![],
            timeout: Duration::from_millis(200),
            deadline: DEFAULT_DEADLINE,
            started: None,
            injected: 0,
        }
    }

    fn latency_ns(&self) -> u64 {
        self.info
            .map_or(0, |i| i.verdict_latency as u64 * i.ns_per_cycle as u64)
    }

    /// The most events of each kind the board may have sent: one verdict per descriptor injected since
    /// START, at most one departure per verdict; before the first START, a previous session's.
    fn event_bound(&self) -> usize {
        match self.started {
            Some(_) => self.injected,
            None => STALE_EVENTS + self.injected,
        }
    }

    /// A board's `held + 1`-th event of `kind` is implausible when `bound` events of that kind is all
    /// the descriptors injected since START can explain.
    fn check_room(
        &self,
        what: &str,
        kind: &str,
        held: usize,
        bound: usize,
    ) -> Result<(), ClientError> {
        if held >= bound {
            return Err(ClientError::Implausible(format!(
                "{what}: {kind} {} but only {} descriptors were injected since START",
                held + 1,
                self.injected
            )));
        }
        Ok(())
    }

    /// Checks a board time (ns since START) of `what` against the board time that has passed since
    /// START, with 1 s and 1 % to spare for a board's clock against the host's.
    fn check_time(&self, what: &str, t: u64) -> Result<(), ClientError> {
        let Some(t0) = self.started else {
            return Ok(());
        };
        let since = self.transport.elapsed().saturating_sub(t0);
        let bound = since + Duration::from_secs(1) + since / 100;
        if u128::from(t) > bound.as_nanos() {
            return Err(ClientError::Implausible(format!(
                "{what}: {t} ns since START, but only {} ns of board time have passed",
                since.as_nanos()
            )));
        }
        Ok(())
    }

    /// Stores an event, checked: its times within the board time since START, no more events than
    /// descriptors.
    fn event(&mut self, m: Message) -> Result<Option<Message>, ClientError> {
        let bound = self.event_bound();
        match m {
            Message::Verdict {
                tag,
                code,
                queue,
                time,
            } => {
                let what = format!("VERDICT for tag {tag}");
                self.check_time(&what, time)?;
                let latency = self.latency_ns();
                let accepted_ns = time.checked_sub(latency).ok_or_else(|| {
                    ClientError::Implausible(format!(
                        "{what}: its time {time} ns is less than the verdict latency ({latency} ns), \
                         so the descriptor would have been accepted before START"
                    ))
                })?;
                self.check_room(&what, "verdict", self.verdicts.len(), bound)?;
                self.verdicts.push(VerdictEvent {
                    tag,
                    code,
                    queue,
                    accepted_ns,
                });
                Ok(None)
            }
            Message::Depart(d) => {
                let what = format!("DEPART of tag {}", d.tag);
                self.check_time(&what, d.sojourn_ns)?;
                self.check_room(&what, "departure", self.departures.len(), bound)?;
                self.departures.push(d);
                Ok(None)
            }
            other => Ok(Some(other)),
        }
    }

    /// Reads frames until one that is not an event arrives (events are stored), within the deadline.
    fn answer(&mut self, waiting_for: &'static str) -> Result<Message, ClientError> {
        let t0 = self.transport.elapsed();
        loop {
            let after = self.transport.elapsed().saturating_sub(t0);
            if after > self.deadline {
                return Err(ClientError::Deadline {
                    waiting_for,
                    after: self.deadline,
                    verdicts: self.verdicts.len(),
                    departures: self.departures.len(),
                });
            }
            // Frames a rescan completed together come first: they arrived before any byte still due.
            let d = match self.decoder.pop() {
                Some(d) => d,
                None => {
                    let Some(b) = self.transport.recv(self.timeout)? else {
                        return Err(ClientError::Timeout { waiting_for });
                    };
                    let Some(d) = self.decoder.push(b) else {
                        continue;
                    };
                    d
                }
            };
            let frame = match d {
                Decoded::Frame(f) => f,
                Decoded::BadCrc { cmd } => {
                    return Err(ClientError::Garbled(format!(
                        "bad CRC, command 0x{cmd:02X}"
                    )))
                }
            };
            let m = Message::decode(&frame).ok_or_else(|| {
                ClientError::Garbled(format!(
                    "command 0x{:02X}, {} bytes",
                    frame.cmd,
                    frame.payload.len()
                ))
            })?;
            match self.event(m)? {
                None => {}
                Some(Message::Error { cmd, code }) => return Err(ClientError::Board { cmd, code }),
                Some(other) => return Ok(other),
            }
        }
    }

    fn request(&mut self, r: Request, waiting_for: &'static str) -> Result<Message, ClientError> {
        let bytes = r.encode().map_err(ClientError::Request)?;
        self.transport.send(&bytes)?;
        self.answer(waiting_for)
    }

    /// Sends raw bytes (for tests of bad frames) and returns the board's answer. The bytes may inject
    /// descriptors (5 bytes each at most) or restart the board's clock, so the event checks loosen.
    pub fn raw(&mut self, bytes: &[u8]) -> Result<Message, ClientError> {
        self.injected += bytes.len() / 5;
        self.started = None;
        self.transport.send(bytes)?;
        self.answer("an answer to raw bytes")
    }

    /// A board's HELLO, each field checked against its range: the protocol version this host speaks, a
    /// core ID of a known core, ns per cycle in [`NS_PER_CYCLE_RANGE`], a UART of at least one cycle
    /// per bit, a capacity and event depth of at least one, the core's verdict latency.
    fn check_hello(i: &BoardInfo) -> Result<Core, String> {
        if i.version != aqm_protocol::VERSION {
            return Err(format!(
                "protocol version {}: this host speaks version {}",
                i.version,
                aqm_protocol::VERSION
            ));
        }
        let core = from_id(i.core_id)?;
        let (lo, hi) = NS_PER_CYCLE_RANGE;
        if !(lo..=hi).contains(&i.ns_per_cycle) {
            return Err(format!(
                "ns_per_cycle {}: expected {lo}..={hi} (1 GHz to 1 MHz)",
                i.ns_per_cycle
            ));
        }
        for (field, v) in [
            ("cycles_per_bit", i.cycles_per_bit),
            ("capacity", i.capacity),
            ("event_depth", i.event_depth),
        ] {
            if v == 0 {
                return Err(format!("{field} 0: expected 1..=65535"));
            }
        }
        if u64::from(i.verdict_latency) != core.verdict_latency() {
            return Err(format!(
                "verdict_latency {} cycles: the {} core's is {}",
                i.verdict_latency,
                core.title(),
                core.verdict_latency()
            ));
        }
        Ok(core)
    }

    pub fn hello(&mut self) -> Result<BoardInfo, ClientError> {
        match self.request(Request::Hello, "HELLO_OK")? {
            Message::Hello(i) => {
                let core = Self::check_hello(&i)
                    .map_err(|e| ClientError::Implausible(format!("HELLO_OK: {e}")))?;
                self.info = Some(i);
                self.core = Some(core);
                Ok(i)
            }
            m => Err(ClientError::Garbled(format!(
                "expected HELLO_OK, got {m:?}"
            ))),
        }
    }

    /// A refused access at `addr` explained, if the board's core is known.
    fn refused(&self, e: ClientError, addr: u8, value: Option<u32>) -> ClientError {
        match e {
            ClientError::Board { code, .. } if code == ErrorCode::RegisterRejected as u8 => {
                let why = match self.core {
                    Some(core) => why_refused(core, addr, value),
                    None => format!(
                        "{} 0x{addr:02X}: refused (no HELLO yet, so the register map that would say why \
                         is unknown)",
                        value.map_or("read of".to_string(), |v| format!("write of {v} to"))
                    ),
                };
                ClientError::Register { why }
            }
            e => e,
        }
    }

    pub fn read(&mut self, addr: u8) -> Result<u32, ClientError> {
        match self.request(Request::Read { addr }, "READ_OK") {
            Ok(Message::ReadOk { addr: a, value }) if a == addr => Ok(value),
            Ok(m) => Err(ClientError::Garbled(format!(
                "expected READ_OK for 0x{addr:02X}, got {m:?}"
            ))),
            Err(e) => Err(self.refused(e, addr, None)),
        }
    }

    /// Writes a register; returns the time (ns since START) the core took it.
    pub fn write(&mut self, addr: u8, value: u32) -> Result<u64, ClientError> {
        match self.request(Request::Write { addr, value }, "WRITE_OK") {
            Ok(Message::WriteOk { addr: a, time }) if a == addr => {
                self.check_time(&format!("WRITE_OK of 0x{addr:02X}"), time)?;
                Ok(time)
            }
            Ok(m) => Err(ClientError::Garbled(format!(
                "expected WRITE_OK for 0x{addr:02X}, got {m:?}"
            ))),
            Err(e) => Err(self.refused(e, addr, Some(value))),
        }
    }

    /// Resets the core and the board's clock; clears the collected events.
    pub fn start(&mut self) -> Result<(), ClientError> {
        match self.request(Request::Start, "START_OK")? {
            Message::StartOk => {
                self.verdicts.clear();
                self.departures.clear();
                self.started = Some(self.transport.elapsed());
                self.injected = 0;
                Ok(())
            }
            m => Err(ClientError::Garbled(format!(
                "expected START_OK, got {m:?}"
            ))),
        }
    }

    /// Injects 1 to 32 descriptors.
    pub fn inject(&mut self, d: &[Descriptor]) -> Result<(), ClientError> {
        // Counted before the answer: their verdicts may come before INJECT_OK.
        self.injected += d.len();
        match self.request(Request::Inject(d.to_vec()), "INJECT_OK")? {
            Message::InjectOk { count } if count as usize == d.len() => Ok(()),
            m => Err(ClientError::Garbled(format!(
                "expected INJECT_OK for {}, got {m:?}",
                d.len()
            ))),
        }
    }

    /// Collects events until none has arrived for `quiet` of board time (within the deadline).
    pub fn drain_events(&mut self, quiet: Duration) -> Result<(), ClientError> {
        let saved = self.timeout;
        self.timeout = quiet;
        let r = self.answer("end of the events");
        self.timeout = saved;
        match r {
            Err(ClientError::Timeout { .. }) => Ok(()),
            Err(e) => Err(e),
            Ok(m) => Err(ClientError::Garbled(format!("unexpected answer {m:?}"))),
        }
    }
}
