//! The protocol client: one command at a time, events collected on the way.

use crate::transport::Transport;
use aqm_protocol::{Decoded, Decoder, Descriptor, ErrorCode, Message, Request, RequestError};
use std::fmt;
use std::time::Duration;

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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardInfo {
    pub version: u8,
    pub core_id: u32,
    pub ns_per_cycle: u32,
    pub cycles_per_bit: u16,
    pub capacity: u16,
    pub event_depth: u16,
    pub verdict_latency: u8,
}

/// A verdict event: the descriptor's tag, the 2-bit code, the queue, and when it was accepted (ns since
/// START).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerdictEvent {
    pub tag: u16,
    pub code: u8,
    pub queue: u8,
    pub accepted_ns: u64,
}

/// A departure event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepartEvent {
    pub tag: u16,
    pub len: u16,
    pub ecn: u8,
    pub dropped: bool,
    pub queue: u8,
    pub sojourn_ns: u64,
}

/// The client.
pub struct Client<T: Transport> {
    pub transport: T,
    decoder: Decoder,
    pub info: Option<BoardInfo>,
    pub verdicts: Vec<VerdictEvent>,
    pub departures: Vec<DepartEvent>,
    /// Board time to wait for an answer.
    pub timeout: Duration,
}

impl<T: Transport> Client<T> {
    pub fn new(transport: T) -> Client<T> {
        Client {
            transport,
            decoder: Decoder::new(),
            info: None,
            verdicts: vec![],
            departures: vec![],
            timeout: Duration::from_millis(200),
        }
    }

    fn latency_ns(&self) -> u64 {
        self.info
            .map_or(0, |i| i.verdict_latency as u64 * i.ns_per_cycle as u64)
    }

    /// Reads frames until one that is not an event arrives (events are stored).
    fn answer(&mut self, waiting_for: &'static str) -> Result<Message, ClientError> {
        loop {
            let Some(b) = self.transport.recv(self.timeout)? else {
                return Err(ClientError::Timeout { waiting_for });
            };
            let Some(d) = self.decoder.push(b) else {
                continue;
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
            match m {
                Message::Verdict {
                    tag,
                    code,
                    queue,
                    time,
                } => self.verdicts.push(VerdictEvent {
                    tag,
                    code,
                    queue,
                    accepted_ns: time - self.latency_ns(),
                }),
                Message::Depart {
                    tag,
                    len,
                    ecn,
                    dropped,
                    queue,
                    sojourn_ns,
                } => self.departures.push(DepartEvent {
                    tag,
                    len,
                    ecn,
                    dropped,
                    queue,
                    sojourn_ns,
                }),
                Message::Error { cmd, code } => return Err(ClientError::Board { cmd, code }),
                other => return Ok(other),
            }
        }
    }

    fn request(&mut self, r: Request, waiting_for: &'static str) -> Result<Message, ClientError> {
        let bytes = r.encode().map_err(ClientError::Request)?;
        self.transport.send(&bytes)?;
        self.answer(waiting_for)
    }

    /// Sends raw bytes (for tests of bad frames) and returns the board's answer.
    pub fn raw(&mut self, bytes: &[u8]) -> Result<Message, ClientError> {
        self.transport.send(bytes)?;
        self.answer("an answer to raw bytes")
    }

    pub fn hello(&mut self) -> Result<BoardInfo, ClientError> {
        match self.request(Request::Hello, "HELLO_OK")? {
            Message::Hello {
                version,
                core_id,
                ns_per_cycle,
                cycles_per_bit,
                capacity,
                event_depth,
                verdict_latency,
            } => {
                let i = BoardInfo {
                    version,
                    core_id,
                    ns_per_cycle,
                    cycles_per_bit,
                    capacity,
                    event_depth,
                    verdict_latency,
                };
                self.info = Some(i);
                Ok(i)
            }
            m => Err(ClientError::Garbled(format!(
                "expected HELLO_OK, got {m:?}"
            ))),
        }
    }

    pub fn read(&mut self, addr: u8) -> Result<u32, ClientError> {
        match self.request(Request::Read { addr }, "READ_OK")? {
            Message::ReadOk { addr: a, value } if a == addr => Ok(value),
            m => Err(ClientError::Garbled(format!(
                "expected READ_OK for 0x{addr:02X}, got {m:?}"
            ))),
        }
    }

    /// Writes a register; returns the time (ns since START) the core took it.
    pub fn write(&mut self, addr: u8, value: u32) -> Result<u64, ClientError> {
        match self.request(Request::Write { addr, value }, "WRITE_OK")? {
            Message::WriteOk { addr: a, time } if a == addr => Ok(time),
            m => Err(ClientError::Garbled(format!(
                "expected WRITE_OK for 0x{addr:02X}, got {m:?}"
            ))),
        }
    }

    /// Resets the core and the board's clock; clears the collected events.
    pub fn start(&mut self) -> Result<(), ClientError> {
        match self.request(Request::Start, "START_OK")? {
            Message::StartOk => {
                self.verdicts.clear();
                self.departures.clear();
                Ok(())
            }
            m => Err(ClientError::Garbled(format!(
                "expected START_OK, got {m:?}"
            ))),
        }
    }

    /// Injects 1 to 32 descriptors.
    pub fn inject(&mut self, d: &[Descriptor]) -> Result<(), ClientError> {
        match self.request(Request::Inject(d.to_vec()), "INJECT_OK")? {
            Message::InjectOk { count } if count as usize == d.len() => Ok(()),
            m => Err(ClientError::Garbled(format!(
                "expected INJECT_OK for {}, got {m:?}",
                d.len()
            ))),
        }
    }

    /// Collects events until none has arrived for `quiet` of board time.
    pub fn drain_events(&mut self, quiet: Duration) -> Result<(), ClientError> {
        let saved = self.timeout;
        self.timeout = quiet;
        let r = self.answer("events");
        self.timeout = saved;
        match r {
            Err(ClientError::Timeout { .. }) => Ok(()),
            Err(e) => Err(e),
            Ok(m) => Err(ClientError::Garbled(format!("unexpected answer {m:?}"))),
        }
    }
}
