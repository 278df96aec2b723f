//! The bridge's frame parser: bytes from the UART into a frame (sync, LEN, CMD, payload into a 256-byte
//! buffer, CRC), held for the executor until it has answered.
//!
//! A frame ends in [`Parser::ready`] with its [`Parser::status`]: [`OK`] (the CRC matched), [`BAD_CRC`]
//! or [`TRUNCATED`] (no byte for 128 bit times before its end); the frame's LEN, CMD, whether its payload
//! is whole descriptors, and its payload (through the read port) stay until [`Parser::done`]. Bytes
//! that arrive meanwhile, and bytes outside a frame (anything but sync between frames), are skipped.

use super::Crc8Step;
use aqm_hdl::bram::BlockRam;
use aqm_hdl::konst::K;
use aqm_protocol::{ErrorCode, SYNC};
use rust_hdl::prelude::*;

/// [`Parser::status`] of a frame whose CRC matched.
pub const OK: u64 = 0;
/// [`Parser::status`] of a frame whose CRC did not match (its ERROR code).
pub const BAD_CRC: u64 = ErrorCode::BadCrc as u64;
/// [`Parser::status`] of a frame that stopped before its end (its ERROR code).
pub const TRUNCATED: u64 = ErrorCode::Truncated as u64;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum ParseState {
    Idle,
    Len,
    Cmd,
    Payload,
    Crc,
    /// A frame (or its failure) is held for the executor.
    Ready,
}

/// `CPB`: UART cycles per bit (the truncation timeout is 128 bit times).
#[derive(LogicBlock, Default)]
pub struct Parser<const CPB: u64> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub rx_data: Signal<In, Bits<8>>,
    pub rx_valid: Signal<In, Bit>,
    /// A frame has ended: `status`, `len`, `command`, `whole` and the payload are valid.
    pub ready: Signal<Out, Bit>,
    /// [`OK`], [`BAD_CRC`] or [`TRUNCATED`].
    pub status: Signal<Out, Bits<2>>,
    pub len: Signal<Out, Bits<8>>,
    /// The frame's CMD (0 when it stopped before its CMD).
    pub command: Signal<Out, Bits<8>>,
    /// The payload is whole 5-byte descriptors (its length counted modulo 5 is 0).
    pub whole: Signal<Out, Bit>,
    /// The executor is done with the frame: parse the next one.
    pub done: Signal<In, Bit>,
    /// The payload buffer's read port (the byte comes a cycle after its address).
    pub read_address: Signal<In, Bits<8>>,
    pub read_data: Signal<Out, Bits<8>>,
    state: DFF<ParseState>,
    len_r: DFF<Bits<8>>,
    /// LEN - 1, taken with LEN: the payload's last index, so that the payload state compares two
    /// registers and has no subtractor in front of its comparison.
    last_r: DFF<Bits<8>>,
    command_r: DFF<Bits<8>>,
    status_r: DFF<Bits<2>>,
    crc: DFF<Bits<8>>,
    pidx: DFF<Bits<8>>,
    /// Payload bytes received, modulo 5.
    m5: DFF<Bits<3>>,
    idle_cnt: DFF<Bits<16>>,
    payload: BlockRam<8, 8>,
    crc_step: Crc8Step,
    cpb: K<16, CPB>,
    sync: K<8, { SYNC as u64 }>,
}

impl<const CPB: u64> Logic for Parser<CPB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, len_r, last_r, command_r, status_r, crc, pidx, m5, idle_cnt);
        clock!(self, clock, payload);
        self.ready.next = self.state.q.val() == ParseState::Ready;
        self.status.next = self.status_r.q.val();
        self.len.next = self.len_r.q.val();
        self.command.next = self.command_r.q.val();
        self.whole.next = self.m5.q.val() == 0;
        self.payload.write_enable.next = false;
        self.payload.write_address.next = self.pidx.q.val();
        self.payload.write_data.next = self.rx_data.val();
        self.payload.read_address.next = self.read_address.val();
        self.read_data.next = self.payload.read_data.val();
        self.crc_step.crc.next = self.crc.q.val();
        self.crc_step.data.next = self.rx_data.val();

        self.idle_cnt.d.next = self.idle_cnt.q.val() + 1;
        if self.rx_valid.val() {
            self.idle_cnt.d.next = 0.into();
        }
        match self.state.q.val() {
            ParseState::Idle => {
                if self.rx_valid.val() & (self.rx_data.val() == self.sync.val()) {
                    self.state.d.next = ParseState::Len;
                    self.command_r.d.next = 0.into();
                    self.crc.d.next = 0.into();
                }
            }
            ParseState::Len => {
                if self.rx_valid.val() {
                    self.len_r.d.next = self.rx_data.val();
                    self.last_r.d.next = self.rx_data.val() - 1;
                    self.crc.d.next = self.crc_step.out.val();
                    self.state.d.next = ParseState::Cmd;
                }
            }
            ParseState::Cmd => {
                if self.rx_valid.val() {
                    self.command_r.d.next = self.rx_data.val();
                    self.crc.d.next = self.crc_step.out.val();
                    self.pidx.d.next = 0.into();
                    self.m5.d.next = 0.into();
                    if self.len_r.q.val().any() {
                        self.state.d.next = ParseState::Payload;
                    } else {
                        self.state.d.next = ParseState::Crc;
                    }
                }
            }
            ParseState::Payload => {
                if self.rx_valid.val() {
                    self.payload.write_enable.next = true;
                    self.crc.d.next = self.crc_step.out.val();
                    self.pidx.d.next = self.pidx.q.val() + 1;
                    self.m5.d.next = self.m5.q.val() + 1;
                    if self.m5.q.val() == 4 {
                        self.m5.d.next = 0.into();
                    }
                    if self.pidx.q.val() == self.last_r.q.val() {
                        self.state.d.next = ParseState::Crc;
                    }
                }
            }
            ParseState::Crc => {
                if self.rx_valid.val() {
                    self.state.d.next = ParseState::Ready;
                    self.status_r.d.next = 0.into(); // OK
                    if self.rx_data.val() != self.crc.q.val() {
                        self.status_r.d.next = 1.into(); // BAD_CRC
                    }
                }
            }
            ParseState::Ready => {
                if self.done.val() {
                    self.state.d.next = ParseState::Idle;
                }
            }
            _ => {
                self.state.d.next = ParseState::Idle;
            }
        }
        // A frame that stops for 128 bit times (about 13 byte times) mid-way is truncated.
        if ((self.state.q.val() == ParseState::Len)
            | (self.state.q.val() == ParseState::Cmd)
            | (self.state.q.val() == ParseState::Payload)
            | (self.state.q.val() == ParseState::Crc))
            & (self.idle_cnt.q.val() == (self.cpb.val() << 7))
        {
            self.state.d.next = ParseState::Ready;
            self.status_r.d.next = 2.into(); // TRUNCATED
        }
        if self.rst.val() {
            self.state.d.next = ParseState::Idle;
            self.idle_cnt.d.next = 0.into();
        }
    }
}

/// UART cycles per bit of the parser the formal proofs check (`scripts/prove`, bsp/formal/): the
/// truncation timeout, 128 bit times, is then 128 cycles.
pub const FORMAL_CPB: u64 = 1;

/// The parser alone, as `module bridge_parser`, for the formal proofs.
pub fn formal_design() -> aqm_hdl::emit::Emitted {
    aqm_hdl::emit::emit_as(Parser::<FORMAL_CPB>::default(), "bridge_parser")
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqm_hdl::sim::{clock_edge, settle};
    use aqm_protocol::{cmd, Frame};

    const CPB: u64 = 4;

    /// What the parser holds when `ready`.
    #[derive(Debug, PartialEq)]
    struct Held {
        status: u64,
        len: u8,
        command: u8,
        whole: bool,
        payload: Vec<u8>,
    }

    struct Tb {
        p: Parser<CPB>,
        cycle: u64,
    }

    impl Tb {
        fn new() -> Tb {
            let mut p = Parser::<CPB>::default();
            p.connect_all();
            let mut tb = Tb { p, cycle: 0 };
            tb.p.rst.next = true;
            tb.step(None, false);
            tb.p.rst.next = false;
            tb
        }

        /// One cycle with a byte (or none) on the line and `done` (the frame released); returns `ready` during it.
        fn step(&mut self, byte: Option<u8>, release: bool) -> bool {
            self.p.rx_valid.next = byte.is_some();
            self.p.rx_data.next = (byte.unwrap_or(0) as u64).to_bits();
            self.p.done.next = release;
            settle(&mut self.p);
            let ready = self.p.ready.val();
            clock_edge(&mut self.p, |p| &mut p.clock);
            self.cycle += 1;
            ready
        }

        /// Bytes `gap` idle cycles apart (the UART gives a byte every 10 bit times at most).
        fn send(&mut self, bytes: &[u8], gap: u64) {
            for &b in bytes {
                self.step(Some(b), false);
                for _ in 0..gap {
                    self.step(None, false);
                }
            }
        }

        /// The frame held, its payload read back through the read port; `None` when not ready.
        fn held(&mut self) -> Option<Held> {
            settle(&mut self.p);
            if !self.p.ready.val() {
                return None;
            }
            let len = self.p.len.val().to_u8();
            let mut payload = vec![];
            for k in 0..len as u64 {
                self.p.read_address.next = k.to_bits();
                self.step(None, false);
                settle(&mut self.p);
                payload.push(self.p.read_data.val().to_u8());
            }
            Some(Held {
                status: self.p.status.val().to_u64(),
                len,
                command: self.p.command.val().to_u8(),
                whole: self.p.whole.val(),
                payload,
            })
        }
    }

    fn ok(f: &Frame) -> Held {
        Held {
            status: OK,
            len: f.payload.len() as u8,
            command: f.cmd,
            whole: f.payload.len().is_multiple_of(5),
            payload: f.payload.clone(),
        }
    }

    #[test]
    fn a_frame_with_idle_gaps_is_held_until_released() {
        let f = Frame::new(cmd::WRITE, vec![0x10, 1, 2, 3, 4]);
        for gap in [0, 1, 7, 39] {
            let mut tb = Tb::new();
            tb.send(&f.encode(), gap);
            assert_eq!(tb.held(), Some(ok(&f)), "gap {gap}");
            // Held: bytes meanwhile are skipped, the frame stays.
            for _ in 0..300 {
                tb.step(None, false);
            }
            tb.send(&Frame::new(cmd::HELLO, vec![]).encode(), 2);
            assert_eq!(tb.held(), Some(ok(&f)), "gap {gap}: still held");
            assert!(tb.step(None, true), "released while ready");
            assert_eq!(tb.held(), None);
            let g = Frame::new(cmd::INJECT, vec![9; 10]);
            tb.send(&g.encode(), gap);
            assert_eq!(tb.held(), Some(ok(&g)), "gap {gap}: the next frame");
        }
    }

    #[test]
    fn garbage_between_frames_is_skipped() {
        let mut tb = Tb::new();
        tb.send(&[0x00, 0x13, 0xFF, 0x5A, 0x80], 3);
        assert_eq!(tb.held(), None);
        let f = Frame::new(cmd::READ, vec![0x21]);
        tb.send(&f.encode(), 3);
        assert_eq!(tb.held(), Some(ok(&f)));
        tb.step(None, true);
        tb.send(&[0x11, 0x22], 0);
        let g = Frame::new(cmd::START, vec![]);
        tb.send(&g.encode(), 0);
        assert_eq!(tb.held(), Some(ok(&g)));
    }

    #[test]
    fn a_bad_crc_is_reported_and_the_parser_resynchronises() {
        let f = Frame::new(cmd::READ, vec![0x20]);
        let mut bytes = f.encode();
        *bytes.last_mut().unwrap() ^= 0x40;
        let mut tb = Tb::new();
        tb.send(&bytes, 2);
        let h = tb.held().expect("held");
        assert_eq!((h.status, h.command, h.len), (BAD_CRC, cmd::READ, 1));
        tb.step(None, true);
        let g = Frame::new(cmd::WRITE, vec![1, 2, 3, 4, 5]);
        tb.send(&g.encode(), 2);
        assert_eq!(tb.held(), Some(ok(&g)));
    }

    #[test]
    fn a_frame_that_stops_is_truncated_after_128_bit_times() {
        // Stopped after SYNC (no CMD yet: command 0), after CMD, in the payload, before the CRC.
        let f = Frame::new(cmd::WRITE, vec![0x10, 1, 2, 3, 4]).encode();
        for (cut, command) in [(1, 0), (3, cmd::WRITE), (5, cmd::WRITE), (8, cmd::WRITE)] {
            let mut tb = Tb::new();
            tb.send(&f[..cut], 0);
            // The count is 0 the cycle after the last byte and ends the frame at 128 bit times.
            for k in 0..=128 * CPB {
                assert!(!tb.step(None, false), "cut {cut}: early at {k}");
            }
            let h = tb.held().expect("truncated");
            assert_eq!((h.status, h.command), (TRUNCATED, command), "cut {cut}");
            tb.step(None, true);
            let g = Frame::new(cmd::HELLO, vec![]);
            tb.send(&g.encode(), 1);
            assert_eq!(tb.held(), Some(ok(&g)), "cut {cut}: resynchronised");
        }
    }

    #[test]
    fn whole_descriptors_are_counted_modulo_5() {
        for n in [1usize, 4, 5, 6, 10, 159, 160, 255] {
            let f = Frame::new(cmd::INJECT, (0..n as u8).collect());
            let mut tb = Tb::new();
            tb.send(&f.encode(), 0);
            let h = tb.held().expect("held");
            assert_eq!(h, ok(&f), "{n} bytes");
        }
        assert_eq!(
            (OK, BAD_CRC, TRUNCATED),
            (0, 1, 2),
            "the literals in update()"
        );
    }

    /// The case budget of the fuzz tests below (`AQM_FUZZ_CASES` raises it, as for every fuzz test of
    /// the workspace).
    fn fuzz_config(default: u32) -> proptest::test_runner::Config {
        let cases = std::env::var("AQM_FUZZ_CASES")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(default);
        proptest::test_runner::Config {
            failure_persistence: None,
            ..proptest::test_runner::Config::with_cases(cases)
        }
    }

    impl Tb {
        /// Bytes `gap` idle cycles apart, the frame released as soon as it is ready (as the executor
        /// does once it has answered): what garbage does to the parser.
        fn send_releasing(&mut self, bytes: &[u8], gap: u64) {
            for &b in bytes {
                for byte in std::iter::once(Some(b)).chain((0..gap).map(|_| None)) {
                    settle(&mut self.p);
                    let ready = self.p.ready.val();
                    self.step(byte, ready);
                }
            }
        }

        /// Idle cycles until a frame is ready, at most `max`; the frame held, if one is.
        fn wait_held(&mut self, max: u64) -> Option<Held> {
            for _ in 0..max {
                settle(&mut self.p);
                if self.p.ready.val() {
                    break;
                }
                self.step(None, false);
            }
            self.held()
        }
    }

    /// A frame with any command and payload.
    fn any_frame() -> impl proptest::strategy::Strategy<Value = Frame> {
        use proptest::prelude::*;
        (any::<u8>(), prop::collection::vec(any::<u8>(), 0..24)).prop_map(|(c, p)| Frame::new(c, p))
    }

    /// Garbage: arbitrary bytes, sync bytes with long lengths, or frames cut, flipped and spliced.
    fn garbage() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        prop_oneof![
            prop::collection::vec(any::<u8>(), 0..64),
            prop::collection::vec(prop_oneof![Just(SYNC), Just(0xFF), any::<u8>()], 0..32),
            (
                prop::collection::vec(any_frame(), 1..4),
                prop::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 1..6),
            )
                .prop_map(|(fs, edits)| {
                    let mut v: Vec<u8> = fs.iter().flat_map(Frame::encode).collect();
                    for (at, b, op) in edits {
                        if v.is_empty() {
                            break;
                        }
                        let at = at % v.len();
                        match op {
                            0 => v[at] ^= b | 1,
                            1 => v.insert(at, b),
                            _ => v.truncate(at),
                        }
                    }
                    v
                }),
        ]
    }

    proptest::proptest! {
        #![proptest_config(fuzz_config(64))]

        /// Garbage, then the host's valid frame: the parser ends whatever the garbage started (by its
        /// length, or by the 128-bit-time timeout), and the frame, sent again each time the answer is
        /// not its own (as the host does after an ERROR), is held whole within a few tries. The parser
        /// goes on taking frames after it.
        #[test]
        fn after_garbage_a_valid_frame_is_answered(
            junk in garbage(),
            gap in proptest::prop_oneof![0u64..3, 3u64..40],
            f in any_frame(),
        ) {
            let mut tb = Tb::new();
            tb.send_releasing(&junk, gap);
            let timeout = 128 * CPB + 8;
            let mut answered = false;
            for _try in 0..4 {
                tb.send(&f.encode(), gap);
                let held = tb.wait_held(timeout);
                proptest::prop_assert!(held.is_some(), "no answer at all to a frame");
                tb.step(None, true);
                if held == Some(ok(&f)) {
                    answered = true;
                    break;
                }
            }
            proptest::prop_assert!(answered, "{f:?} never held after {} bytes of garbage", junk.len());
            let g = Frame::new(cmd::READ, vec![0x21]);
            tb.send(&g.encode(), gap);
            proptest::prop_assert_eq!(tb.wait_held(timeout), Some(ok(&g)));
        }
    }
}
