//! The bridge's executor: a parsed frame into the core's register bus, reset and ingress, and the answer
//! to send (a response or an ERROR) for the framer.
//!
//! ```text
//! Idle --frame--> Fetch (5 payload bytes) --> ReadWait | WriteWait | InjectOffer (-> Fetch ...) --> Respond
//!   \--HELLO, START, or any error--------------------------------------------------------------/
//! ```
//! Everything the core sees comes straight from a register. An INJECT descriptor is offered only when the
//! event FIFOs have room for everything the core may still report (the departures of every packet it
//! holds, the verdicts in flight), so the core's `out_ready` can stay high.

use super::{CoreDrive, CoreEvents};
use aqm_hdl::konst::K;
use aqm_protocol::{cmd, ErrorCode};
use rust_hdl::prelude::*;

/// The answers the framer sends ([`Executor::resp_kind`]).
pub mod kind {
    pub const HELLO: u64 = 0;
    pub const READ: u64 = 1;
    pub const WRITE: u64 = 2;
    pub const START: u64 = 3;
    pub const INJECT: u64 = 4;
    pub const ERROR: u64 = 5;
    /// Frames of events, the framer's own.
    pub const VERDICT: u64 = 6;
    pub const DEPART: u64 = 7;
}

/// Event FIFO entries (of 256) from which no descriptor is offered (the literal 240 in the logic).
pub const ROOM: u64 = 240;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum ExecState {
    /// Waiting for a frame; executes it in the cycle it is ready.
    Idle,
    Fetch,
    ReadWait,
    WriteWait,
    InjectOffer,
    /// The answer is with the framer until it is sent.
    Respond,
}

/// `NSPC`: ns per clock cycle (the core's time step).
#[derive(LogicBlock, Default)]
pub struct Executor<const NSPC: u64> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    // The parser's frame. `len` and `command` hold their values from at least a cycle before `ready`
    // (the parser takes them a byte before the CRC) until `done`.
    pub ready: Signal<In, Bit>,
    pub status: Signal<In, Bits<2>>,
    pub len: Signal<In, Bits<8>>,
    pub command: Signal<In, Bits<8>>,
    pub whole: Signal<In, Bit>,
    /// The answer is sent: the parser may take the next frame.
    pub done: Signal<Out, Bit>,
    pub read_address: Signal<Out, Bits<8>>,
    pub read_data: Signal<In, Bits<8>>,
    // The core.
    pub core: CoreDrive,
    /// Only `verdict_valid`, `verdict_code` and `out_valid` are read.
    pub events: CoreEvents,
    /// ns since START (the reset cycle is 0).
    pub now: Signal<Out, Bits<40>>,
    // The event FIFOs' fill.
    pub verdict_count: Signal<In, Bits<9>>,
    pub depart_count: Signal<In, Bits<9>>,
    // The answer, for the framer.
    pub resp_pending: Signal<Out, Bit>,
    pub resp_kind: Signal<Out, Bits<3>>,
    /// The framer sent the answer's last byte.
    pub resp_sent: Signal<In, Bit>,
    /// READ_OK's and WRITE_OK's address.
    pub addr: Signal<Out, Bits<8>>,
    /// The answer's payload after its first byte: READ_OK's value, WRITE_OK's time, ERROR's code.
    pub value: Signal<Out, Bits<40>>,
    pub inj_done: Signal<Out, Bits<8>>,
    // Activity, one cycle each, for the LEDs.
    pub frame_ok: Signal<Out, Bit>,
    pub frame_err: Signal<Out, Bit>,
    state: DFF<ExecState>,
    fcnt: DFF<Bits<3>>,
    /// The payload buffer's read address: the next descriptor's first byte outside Fetch.
    raddr: DFF<Bits<8>>,
    /// The fetched payload bytes, least significant first.
    fsh: DFF<Bits<40>>,
    wait_cnt: DFF<Bits<2>>,
    /// READ_OK's value, WRITE_OK's time or ERROR's code.
    value_r: DFF<Bits<40>>,
    inj_r: DFF<Bits<6>>,
    now_r: DFF<Bits<40>>,
    /// At most `ROOM` (a descriptor is offered only below it).
    in_core: DFF<Bits<8>>,
    pending: DFF<Bit>,
    kind_r: DFF<Bits<3>>,
    ok_pulse: DFF<Bit>,
    err_pulse: DFF<Bit>,
    rst_r: DFF<Bit>,
    offer: DFF<Bit>,
    we_r: DFF<Bit>,
    re_r: DFF<Bit>,
    /// The held frame's command and length checks, registered from the parser's `command` and `len`,
    /// which it sets at least a byte before `ready` and holds until `done`: so they are the live
    /// values' in every `ready` cycle, and the answer's decision reads flip-flops (the PIE card at
    /// 12 ns had the 8-bit comparisons on `len` in front of the answer kind's enable).
    k_hello: DFF<Bit>,
    k_read: DFF<Bit>,
    k_write: DFF<Bit>,
    k_start: DFF<Bit>,
    k_inject: DFF<Bit>,
    /// LEN is 0, 1, 5; 1..=160 (an INJECT's bound).
    l_zero: DFF<Bit>,
    l_one: DFF<Bit>,
    l_five: DFF<Bit>,
    l_inj: DFF<Bit>,
    fail: Signal<Local, Bit>,
    fail_code: Signal<Local, Bits<3>>,
    room: Signal<Local, Bit>,
    fill: Signal<Local, Bits<9>>,
    /// in_core's change, -2..=1 in two's complement.
    delta: Signal<Local, Bits<8>>,
    delta_neg: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    /// START: the core is reset next cycle, so it holds nothing (whatever it reports this cycle).
    start: Signal<Local, Bit>,
    dropped: Signal<Local, Bit>,
    nspc: K<8, NSPC>,
    c_hello: K<8, { cmd::HELLO as u64 }>,
    c_read: K<8, { cmd::READ as u64 }>,
    c_write: K<8, { cmd::WRITE as u64 }>,
    c_start: K<8, { cmd::START as u64 }>,
    c_inject: K<8, { cmd::INJECT as u64 }>,
    e_payload: K<3, { ErrorCode::BadPayload as u64 }>,
    e_command: K<3, { ErrorCode::UnknownCommand as u64 }>,
    e_rejected: K<3, { ErrorCode::RegisterRejected as u64 }>,
}

impl<const NSPC: u64> Logic for Executor<NSPC> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, fcnt, raddr, fsh, wait_cnt, value_r, inj_r, now_r, in_core,
            pending, kind_r, ok_pulse, err_pulse, rst_r, offer, we_r, re_r, k_hello, k_read,
            k_write, k_start, k_inject, l_zero, l_one, l_five, l_inj
        );
        self.k_hello.d.next = self.command.val() == self.c_hello.val();
        self.k_read.d.next = self.command.val() == self.c_read.val();
        self.k_write.d.next = self.command.val() == self.c_write.val();
        self.k_start.d.next = self.command.val() == self.c_start.val();
        self.k_inject.d.next = self.command.val() == self.c_inject.val();
        self.l_zero.d.next = !self.len.val().any();
        self.l_one.d.next = self.len.val() == 1;
        self.l_five.d.next = self.len.val() == 5;
        self.l_inj.d.next = self.len.val().any() & (self.len.val() <= 160);
        // Time since START in ns: NSPC per cycle (the reset cycle is 0).
        self.now_r.d.next = self.now_r.q.val() + bit_cast::<40, 8>(self.nspc.val());
        self.now.next = self.now_r.q.val();

        self.core.rst.next = self.rst_r.q.val();
        self.core.in_valid.next = self.offer.q.val();
        self.core.reg_we.next = self.we_r.q.val();
        self.core.reg_re.next = self.re_r.q.val();
        self.rst_r.d.next = false;
        self.we_r.d.next = false;
        self.re_r.d.next = false;
        self.core.reg_addr.next = self.fsh.q.val().get_bits::<8>(0);
        self.core.reg_wdata.next = self.fsh.q.val().get_bits::<32>(8);
        self.core.in_len.next = self.fsh.q.val().get_bits::<16>(0);
        self.core.in_ecn.next = self.fsh.q.val().get_bits::<2>(16);
        self.core.in_tag.next = self.fsh.q.val().get_bits::<16>(24);
        self.read_address.next = self.raddr.q.val();

        self.resp_pending.next = self.pending.q.val();
        self.resp_kind.next = self.kind_r.q.val();
        self.addr.next = self.fsh.q.val().get_bits::<8>(0);
        self.value.next = self.value_r.q.val();
        self.inj_done.next = bit_cast::<8, 6>(self.inj_r.q.val());
        self.ok_pulse.d.next = false;
        self.err_pulse.d.next = false;
        self.frame_ok.next = self.ok_pulse.q.val();
        self.frame_err.next = self.err_pulse.q.val();
        if self.resp_sent.val() {
            self.pending.d.next = false;
        }
        self.done.next = (self.state.q.val() == ExecState::Respond) & !self.pending.q.val();

        // Admission: room in the event FIFOs for everything the core may still report.
        // x < 240 (ROOM) for 9-bit x: neither bit 8 nor bits 7:4 all set (no carry chain).
        self.fill.next = self.depart_count.val() + bit_cast::<9, 8>(self.in_core.q.val());
        self.room.next = !(self.verdict_count.val().get_bit(8)
            | (self.verdict_count.val().get_bits::<4>(4) == 15))
            & !(self.fill.val().get_bit(8) | (self.fill.val().get_bits::<4>(4) == 15));

        self.fail.next = false;
        self.fail_code.next = 0.into();
        self.accept.next = false;
        self.start.next = false;
        match self.state.q.val() {
            ExecState::Idle => {
                self.raddr.d.next = 0.into();
                self.fcnt.d.next = 0.into();
                self.inj_r.d.next = 0.into();
                if self.ready.val() {
                    if self.status.val().any() {
                        // The parser's error (bad CRC, truncated) is the answer's code.
                        self.fail.next = true;
                        self.fail_code.next = bit_cast::<3, 2>(self.status.val());
                    } else if self.k_hello.q.val() {
                        if !self.l_zero.q.val() {
                            self.fail.next = true;
                            self.fail_code.next = self.e_payload.val();
                        } else {
                            self.pending.d.next = true;
                            self.kind_r.d.next = 0.into();
                            self.state.d.next = ExecState::Respond;
                        }
                    } else if self.k_read.q.val() {
                        if !self.l_one.q.val() {
                            self.fail.next = true;
                            self.fail_code.next = self.e_payload.val();
                        } else {
                            self.state.d.next = ExecState::Fetch;
                        }
                    } else if self.k_write.q.val() {
                        if !self.l_five.q.val() {
                            self.fail.next = true;
                            self.fail_code.next = self.e_payload.val();
                        } else {
                            self.state.d.next = ExecState::Fetch;
                        }
                    } else if self.k_start.q.val() {
                        if !self.l_zero.q.val() {
                            self.fail.next = true;
                            self.fail_code.next = self.e_payload.val();
                        } else {
                            // The next cycle is the core's reset cycle, at time 0.
                            self.rst_r.d.next = true;
                            self.now_r.d.next = 0.into();
                            self.start.next = true;
                            self.pending.d.next = true;
                            self.kind_r.d.next = 3.into();
                            self.state.d.next = ExecState::Respond;
                        }
                    } else if self.k_inject.q.val() {
                        // 1..=32 descriptors of 5 bytes.
                        if self.l_inj.q.val() & self.whole.val() {
                            self.state.d.next = ExecState::Fetch;
                        } else {
                            self.fail.next = true;
                            self.fail_code.next = self.e_payload.val();
                        }
                    } else {
                        self.fail.next = true;
                        self.fail_code.next = self.e_command.val();
                    }
                }
            }
            ExecState::Fetch => {
                // Five payload bytes from raddr into fsh, least significant first: the RAM answers a
                // cycle after its address, so byte k lands at fcnt = k + 1 and all five are in at 6.
                self.fcnt.d.next = self.fcnt.q.val() + 1;
                // The read address follows fcnt up to the next descriptor's first byte.
                if self.fcnt.q.val() < 5 {
                    self.raddr.d.next = self.raddr.q.val() + 1;
                }
                if self.fcnt.q.val().any() & (self.fcnt.q.val() <= 5) {
                    self.fsh.d.next =
                        (self.fsh.q.val() >> 8) | (bit_cast::<40, 8>(self.read_data.val()) << 32);
                }
                if self.fcnt.q.val() == 6 {
                    self.fcnt.d.next = 0.into();
                    if self.k_read.q.val() {
                        self.re_r.d.next = true;
                        self.state.d.next = ExecState::ReadWait;
                    } else if self.k_write.q.val() {
                        // The core sees the write next cycle (WriteWait's first), one time step later.
                        self.we_r.d.next = true;
                        self.wait_cnt.d.next = 0.into();
                        self.state.d.next = ExecState::WriteWait;
                    } else {
                        self.state.d.next = ExecState::InjectOffer;
                    }
                }
            }
            ExecState::ReadWait => {
                if self.core.reg_rvalid.val() {
                    if self.core.reg_err.val() {
                        self.fail.next = true;
                        self.fail_code.next = self.e_rejected.val();
                    } else {
                        self.pending.d.next = true;
                        self.kind_r.d.next = 1.into();
                        self.value_r.d.next = bit_cast::<40, 32>(self.core.reg_rdata.val());
                        self.state.d.next = ExecState::Respond;
                    }
                }
            }
            ExecState::WriteWait => {
                // The core applies the write a cycle after taking it and flags a refusal the cycle after.
                self.wait_cnt.d.next = self.wait_cnt.q.val() + 1;
                if self.wait_cnt.q.val() == 0 {
                    // The time of the cycle in which the core takes the write.
                    self.value_r.d.next = self.now_r.q.val();
                }
                if self.core.reg_err.val() {
                    self.fail.next = true;
                    self.fail_code.next = self.e_rejected.val();
                } else if self.wait_cnt.q.val() == 2 {
                    self.pending.d.next = true;
                    self.kind_r.d.next = 2.into();
                    self.state.d.next = ExecState::Respond;
                }
            }
            ExecState::InjectOffer => {
                // Offer when the event FIFOs have room; the core takes it when in_ready.
                if !self.offer.q.val() {
                    self.offer.d.next = self.room.val();
                }
                if self.offer.q.val() & self.core.in_ready.val() {
                    self.offer.d.next = false;
                    self.accept.next = true;
                    self.inj_r.d.next = self.inj_r.q.val() + 1;
                    if self.raddr.q.val() == self.len.val() {
                        self.pending.d.next = true;
                        self.kind_r.d.next = 4.into();
                        self.state.d.next = ExecState::Respond;
                    } else {
                        self.state.d.next = ExecState::Fetch;
                    }
                }
            }
            ExecState::Respond => {
                if !self.pending.q.val() {
                    self.ok_pulse.d.next = true;
                    self.state.d.next = ExecState::Idle;
                }
            }
            _ => {
                self.state.d.next = ExecState::Idle;
            }
        }
        if self.fail.val() {
            self.pending.d.next = true;
            self.kind_r.d.next = 5.into();
            self.value_r.d.next = bit_cast::<40, 3>(self.fail_code.val());
            self.err_pulse.d.next = true;
            self.state.d.next = ExecState::Respond;
        }

        // Packets the core still holds: accepted, minus dropped verdicts, minus departures.
        self.dropped.next =
            self.events.verdict_valid.val() & self.events.verdict_code.val().get_bit(1);
        // One adder: + accept - dropped - out_valid.
        self.delta_neg.next = (!self.accept.val()
            & (self.dropped.val() | self.events.out_valid.val()))
            | (self.dropped.val() & self.events.out_valid.val());
        self.delta.next = 0.into();
        if self.delta_neg.val() {
            self.delta.next = 254.into();
        }
        if self.accept.val() ^ self.dropped.val() ^ self.events.out_valid.val() {
            self.delta.next = self.delta.val() | 1;
        }
        if self.accept.val() | self.dropped.val() | self.events.out_valid.val() {
            self.in_core.d.next = self.in_core.q.val() + self.delta.val();
        }
        if self.start.val() {
            self.in_core.d.next = 0.into();
        }

        if self.rst.val() {
            self.rst_r.d.next = true;
            self.offer.d.next = false;
            self.we_r.d.next = false;
            self.re_r.d.next = false;
            self.state.d.next = ExecState::Idle;
            self.pending.d.next = false;
            self.now_r.d.next = 0.into();
            self.in_core.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqm_hdl::sim::{clock_edge, settle};

    const NSPC: u64 = 25;
    /// The fake core refuses this register (reads and writes).
    const BAD_REG: u8 = 0xFF;

    /// The executor between a held frame and a fake core: registers answer a cycle after the read, a
    /// refused write is flagged two cycles after it; the framer takes an answer `send_delay` cycles after
    /// it is pending.
    struct Tb {
        e: Executor<NSPC>,
        payload: Vec<u8>,
        read_data: u8,
        rvalid: bool,
        rerr: bool,
        werr: [bool; 2],
        in_ready: bool,
        /// The core reports a departure in the next this many cycles.
        departing: u64,
        verdict_count: u64,
        send_delay: u64,
        pending_for: u64,
        /// Register reads and writes the core saw, descriptors it took, resets.
        reads: Vec<u8>,
        writes: Vec<(u8, u32)>,
        taken: Vec<(u16, u8, u16)>,
        resets: u64,
        releases: u64,
    }

    /// An answer as the framer saw it when it took it.
    #[derive(Debug, PartialEq)]
    enum Answer {
        Kind(u64),
        Read(u8, u32),
        Write(u8, u64),
        Inject(u8),
        Error(u64),
    }

    impl Tb {
        fn new() -> Tb {
            let mut e = Executor::<NSPC>::default();
            e.connect_all();
            let mut tb = Tb {
                e,
                payload: vec![],
                read_data: 0,
                rvalid: false,
                rerr: false,
                werr: [false; 2],
                in_ready: true,
                departing: 0,
                verdict_count: 0,
                send_delay: 3,
                pending_for: 0,
                reads: vec![],
                writes: vec![],
                taken: vec![],
                resets: 0,
                releases: 0,
            };
            tb.e.rst.next = true;
            tb.cycle(false, 0, 0, 0, false);
            tb.e.rst.next = false;
            // The core's reset cycle follows the bridge's.
            tb.cycle(false, 0, 0, 0, false);
            assert_eq!(tb.resets, 1);
            tb
        }

        /// One cycle with the parser holding (`ready`) a frame; returns the answer taken this cycle.
        fn cycle(
            &mut self,
            ready: bool,
            status: u64,
            len: u8,
            command: u8,
            whole: bool,
        ) -> Option<Answer> {
            let e = &mut self.e;
            e.ready.next = ready;
            e.status.next = status.to_bits();
            e.len.next = (len as u64).to_bits();
            e.command.next = (command as u64).to_bits();
            e.whole.next = whole;
            e.read_data.next = (self.read_data as u64).to_bits();
            e.core.in_ready.next = self.in_ready;
            e.events.verdict_valid.next = false;
            e.events.verdict_code.next = 0.into();
            e.events.out_valid.next = self.departing > 0;
            self.departing = self.departing.saturating_sub(1);
            e.core.reg_rvalid.next = self.rvalid;
            e.core.reg_err.next = self.rerr | self.werr[1];
            e.core.reg_rdata.next = 0xDEAD_0000u64.to_bits();
            e.verdict_count.next = self.verdict_count.to_bits();
            e.depart_count.next = 0.into();
            e.resp_sent.next = false;
            settle(e);
            let mut answer = None;
            if e.resp_pending.val() {
                self.pending_for += 1;
                if self.pending_for > self.send_delay {
                    e.resp_sent.next = true;
                    self.pending_for = 0;
                    answer = Some(match e.resp_kind.val().to_u64() {
                        kind::READ => {
                            Answer::Read(e.addr.val().to_u8(), e.value.val().to_u64() as u32)
                        }
                        kind::WRITE => Answer::Write(e.addr.val().to_u8(), e.value.val().to_u64()),
                        kind::INJECT => Answer::Inject(e.inj_done.val().to_u8()),
                        kind::ERROR => Answer::Error(e.value.val().to_u64()),
                        k => Answer::Kind(k),
                    });
                    settle(e);
                }
            }
            if e.done.val() {
                self.releases += 1;
            }
            // The fake core and the payload buffer, at the edge.
            let addr = e.core.reg_addr.val().to_u8();
            self.rvalid = e.core.reg_re.val();
            self.rerr = e.core.reg_re.val() && addr == BAD_REG;
            if e.core.reg_re.val() {
                self.reads.push(addr);
            }
            self.werr = [e.core.reg_we.val() && addr == BAD_REG, self.werr[0]];
            if e.core.reg_we.val() {
                self.writes.push((addr, e.core.reg_wdata.val().to_u32()));
            }
            if e.core.in_valid.val() && self.in_ready {
                self.taken.push((
                    e.core.in_len.val().to_u16(),
                    e.core.in_ecn.val().to_u8(),
                    e.core.in_tag.val().to_u16(),
                ));
            }
            if e.core.rst.val() {
                self.resets += 1;
            }
            let ra = e.read_address.val().index();
            self.read_data = self.payload.get(ra).copied().unwrap_or(0);
            clock_edge(e, |e| &mut e.clock);
            answer
        }

        /// Holds a frame until the executor releases it; returns every answer taken meanwhile.
        fn run(&mut self, status: u64, command: u8, payload: &[u8]) -> Vec<Answer> {
            self.payload = payload.to_vec();
            let before = self.releases;
            let mut answers = vec![];
            let len = payload.len() as u8;
            let whole = payload.len().is_multiple_of(5);
            // As the parser: LEN and CMD a cycle (here) or more before `ready`.
            answers.extend(self.cycle(false, status, len, command, whole));
            for _ in 0..2000 {
                answers.extend(self.cycle(true, status, len, command, whole));
                if self.releases > before {
                    return answers;
                }
            }
            panic!("the frame was never released (answers so far {answers:?})");
        }
    }

    #[test]
    fn every_bad_frame_gets_one_error_answer_and_changes_nothing() {
        let cases: &[(u64, u8, &[u8], u64)] = &[
            (1, cmd::READ, &[1], 1),
            (2, 0, &[], 2),
            (0, 0x42, &[], ErrorCode::UnknownCommand as u64),
            (0, cmd::HELLO, &[0], 4),
            (0, cmd::READ, &[], 4),
            (0, cmd::READ, &[1, 2], 4),
            (0, cmd::WRITE, &[1, 2, 3, 4], 4),
            (0, cmd::WRITE, &[1, 2, 3, 4, 5, 6], 4),
            (0, cmd::START, &[0], 4),
            (0, cmd::INJECT, &[], 4),
            (0, cmd::INJECT, &[0; 7], 4),
            (0, cmd::INJECT, &[0; 165], 4),
            (0, cmd::READ, &[BAD_REG], ErrorCode::RegisterRejected as u64),
            (
                0,
                cmd::WRITE,
                &[BAD_REG, 1, 0, 0, 0],
                ErrorCode::RegisterRejected as u64,
            ),
        ];
        for &(status, command, payload, code) in cases {
            let mut tb = Tb::new();
            let resets = tb.resets;
            assert_eq!(
                tb.run(status, command, payload),
                vec![Answer::Error(code)],
                "status {status}, command 0x{command:02X}, {} bytes",
                payload.len()
            );
            assert!(tb.taken.is_empty() && tb.resets == resets);
            assert!(tb.writes.iter().all(|w| w.0 == BAD_REG), "{:?}", tb.writes);
        }
    }

    #[test]
    fn hello_read_write_start_are_answered_after_the_framer_takes_them() {
        let mut tb = Tb::new();
        for delay in [0, 1, 50] {
            tb.send_delay = delay;
            assert_eq!(tb.run(0, cmd::HELLO, &[]), vec![Answer::Kind(kind::HELLO)]);
            assert_eq!(
                tb.run(0, cmd::READ, &[0x21]),
                vec![Answer::Read(0x21, 0xDEAD_0000)]
            );
            let w = tb.run(0, cmd::WRITE, &[0x10, 0x78, 0x56, 0x34, 0x12]);
            assert!(
                matches!(w[..], [Answer::Write(0x10, t)] if t > 0 && t % NSPC == 0),
                "{w:?}"
            );
            assert_eq!(tb.writes.last(), Some(&(0x10, 0x1234_5678)));
            let resets = tb.resets;
            assert_eq!(tb.run(0, cmd::START, &[]), vec![Answer::Kind(kind::START)]);
            assert_eq!(tb.resets, resets + 1);
        }
        assert_eq!(tb.reads, vec![0x21; 3]);
        // START: the core's reset cycle is time 0.
        let w = tb.run(0, cmd::WRITE, &[0x10, 0, 0, 0, 0]);
        assert!(
            matches!(w[..], [Answer::Write(0x10, t)] if t < 100 * NSPC),
            "{w:?}"
        );
    }

    #[test]
    fn inject_waits_for_the_core_and_for_room_in_the_event_fifos() {
        let descs: Vec<(u16, u8, u16)> = (0..32)
            .map(|k| (64 + k, (k % 4) as u8, 0x100 + k))
            .collect();
        let payload: Vec<u8> = descs
            .iter()
            .flat_map(|&(len, ecn, tag)| {
                [
                    len as u8,
                    (len >> 8) as u8,
                    ecn,
                    tag as u8,
                    (tag >> 8) as u8,
                ]
            })
            .collect();
        let mut tb = Tb::new();
        // No room: nothing is offered.
        tb.verdict_count = ROOM;
        tb.payload = payload.clone();
        tb.cycle(false, 0, payload.len() as u8, cmd::INJECT, true);
        for _ in 0..100 {
            tb.cycle(true, 0, payload.len() as u8, cmd::INJECT, true);
            assert!(!tb.e.core.in_valid.val());
        }
        // Room, and a core that takes a descriptor every 7th cycle only (back-pressure).
        tb.verdict_count = ROOM - 1;
        let mut answers = vec![];
        let mut n = 0u64;
        while tb.releases == 0 {
            n += 1;
            tb.in_ready = n.is_multiple_of(7);
            answers.extend(tb.cycle(true, 0, payload.len() as u8, cmd::INJECT, true));
            assert!(n < 5000);
        }
        assert_eq!(answers, vec![Answer::Inject(32)]);
        assert_eq!(tb.taken, descs);
    }

    #[test]
    fn start_empties_the_count_of_packets_in_the_core_even_with_a_departure_in_its_cycle() {
        let mut tb = Tb::new();
        let payload: Vec<u8> = (0..3u8).flat_map(|k| [100, 0, 0, k, 0]).collect();
        assert_eq!(tb.run(0, cmd::INJECT, &payload), vec![Answer::Inject(3)]);
        assert_eq!(tb.e.in_core.q.val().to_u64(), 3);
        // The core sends one of them in the cycle START is taken; the reset then empties it.
        tb.departing = 1;
        assert_eq!(tb.run(0, cmd::START, &[]), vec![Answer::Kind(kind::START)]);
        assert_eq!(tb.e.in_core.q.val().to_u64(), 0);
    }
}
