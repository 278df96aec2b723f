//! The bridge's framer: the executor's answer first, then verdicts, then departures, each built byte by
//! byte from its fields as `SYNC | LEN | CMD | PAYLOAD | CRC` (see `aqm_protocol`), at the pace the UART
//! takes them (`tx_ready`). The answer's fields are held by the executor until the framer says it is
//! sent; an event's head stays in its FIFO until its frame's last byte.
//!
//! Verdicts and departures go into 256-entry FIFOs as the core reports them; a verdict is stamped with the
//! time it comes out (`stamp`).

use super::{CoreEvents, Crc8Step};
use aqm_hdl::desc_queue::DescQueue;
use aqm_hdl::konst::K;
use aqm_protocol::{cmd, SYNC, VERSION};
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum TxState {
    Idle,
    Send,
}

/// A frame's header as the framer needs it: LEN (bits 0-7), CMD (8-15) and the index of its CRC byte,
/// LEN + 3 (16-20: SYNC, LEN and CMD come first).
const fn frame(len: u8, cmd: u8) -> u64 {
    len as u64 | (cmd as u64) << 8 | (len as u64 + 3) << 16
}

/// `CPB`: UART cycles per bit; `NSPC`: ns per clock cycle; `VLAT`: the core's verdict latency; `ID`: the
/// core's ID register value; `CAP`: its descriptor capacity (all reported by HELLO_OK).
#[derive(LogicBlock, Default)]
pub struct Framer<const CPB: u64, const NSPC: u64, const VLAT: u64, const ID: u64, const CAP: u64> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub tx_data: Signal<Out, Bits<8>>,
    pub tx_valid: Signal<Out, Bit>,
    pub tx_ready: Signal<In, Bit>,
    // The executor's answer (see `executor::kind`) and its fields.
    pub resp_pending: Signal<In, Bit>,
    pub resp_kind: Signal<In, Bits<3>>,
    /// The answer's last byte is taken this cycle.
    pub resp_sent: Signal<Out, Bit>,
    /// READ_OK's and WRITE_OK's address.
    pub addr: Signal<In, Bits<8>>,
    /// The answer's payload after its first byte: READ_OK's value, WRITE_OK's time, ERROR's code.
    pub value: Signal<In, Bits<40>>,
    pub inj_done: Signal<In, Bits<8>>,
    /// ERROR's command byte.
    pub command: Signal<In, Bits<8>>,
    // The core's events.
    pub stamp: Signal<In, Bits<40>>,
    pub events: CoreEvents,
    /// The event FIFOs' fill.
    pub verdict_count: Signal<Out, Bits<9>>,
    pub depart_count: Signal<Out, Bits<9>>,
    tstate: DFF<TxState>,
    /// The frame being sent (`executor::kind`).
    tkind: DFF<Bits<3>>,
    /// The byte of the frame being sent (0: sync; the CRC at LEN + 3 <= 19).
    tidx: DFF<Bits<5>>,
    tcrc: DFF<Bits<8>>,
    /// `tidx` is the frame's CRC index (its last byte): kept a byte ahead, so that the last byte's pop
    /// of an event FIFO (and its read address, `rd_ptr + pop`) waits on flip-flops, not on the frame
    /// header's mux and a comparison (that path was 1.4 ns short on the PIE card at 12 ns).
    tend: DFF<Bit>,
    /// The payload of the frame being sent (but HELLO_OK's, which is constant), loaded when the frame
    /// starts, the byte being sent in the low 8 bits: shifted down a byte per payload byte sent.
    tsh: DFF<Bits<80>>,
    verdicts: DescQueue<59, 8, 9>,
    departs: DescQueue<76, 8, 9>,
    crc_step: Crc8Step,
    tbyte: Signal<Local, Bits<8>>,
    /// The frame's header, as `frame` packs it.
    thead: Signal<Local, Bits<21>>,
    tlen: Signal<Local, Bits<8>>,
    tcmd: Signal<Local, Bits<8>>,
    /// The CRC's index (LEN + 3).
    tlast: Signal<Local, Bits<5>>,
    hbyte: Signal<Local, Bits<8>>,
    lead: Signal<Local, Bits<8>>,
    vpay: Signal<Local, Bits<80>>,
    dpay: Signal<Local, Bits<80>>,
    cpb: K<16, CPB>,
    vlat: K<8, VLAT>,
    core_id: K<32, ID>,
    capacity: K<16, CAP>,
    sync: K<8, { SYNC as u64 }>,
    version: K<8, { VERSION as u64 }>,
    nspc32: K<32, NSPC>,
    depth: K<16, 256>,
    // Each answer's and event's frame header (see `frame`), by `executor::kind`.
    f_hello: K<21, { frame(16, cmd::HELLO | cmd::RESPONSE) }>,
    f_read: K<21, { frame(5, cmd::READ | cmd::RESPONSE) }>,
    f_write: K<21, { frame(6, cmd::WRITE | cmd::RESPONSE) }>,
    f_start: K<21, { frame(0, cmd::START | cmd::RESPONSE) }>,
    f_inject: K<21, { frame(1, cmd::INJECT | cmd::RESPONSE) }>,
    f_error: K<21, { frame(2, cmd::ERROR) }>,
    f_verdict: K<21, { frame(8, cmd::VERDICT) }>,
    f_depart: K<21, { frame(10, cmd::DEPART) }>,
}

impl<const CPB: u64, const NSPC: u64, const VLAT: u64, const ID: u64, const CAP: u64> Logic
    for Framer<CPB, NSPC, VLAT, ID, CAP>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, tstate, tkind, tidx, tcrc, tend, tsh);
        clock!(self, clock, verdicts, departs);
        self.verdicts.rst.next = self.rst.val();
        self.departs.rst.next = self.rst.val();
        self.verdict_count.next = self.verdicts.count.val();
        self.depart_count.next = self.departs.count.val();

        // Events into their FIFOs (the core's out_ready is always high), each entry its frame's
        // payload bytes, least significant first.
        self.verdicts.push.next = self.events.verdict_valid.val();
        // tag u16, code | queue << 2, time u40
        self.verdicts.push_data.next = (bit_cast::<59, 40>(self.stamp.val()) << 19)
            | (bit_cast::<59, 1>(self.events.verdict_queue.val().into()) << 18)
            | (bit_cast::<59, 2>(self.events.verdict_code.val()) << 16)
            | bit_cast::<59, 16>(self.events.verdict_tag.val());
        self.departs.push.next = self.events.out_valid.val();
        // tag u16, len u16, flags u8 (ecn, dropped << 2, queue << 3), sojourn u40
        self.departs.push_data.next = (bit_cast::<76, 40>(self.events.out_sojourn.val()) << 36)
            | (bit_cast::<76, 1>(self.events.out_queue.val().into()) << 35)
            | (bit_cast::<76, 1>(self.events.out_drop.val().into()) << 34)
            | (bit_cast::<76, 2>(self.events.out_ecn.val()) << 32)
            | (bit_cast::<76, 16>(self.events.out_len.val()) << 16)
            | bit_cast::<76, 16>(self.events.out_tag.val());
        self.vpay.next = (bit_cast::<80, 40>(self.verdicts.head_data.val().get_bits::<40>(19))
            << 24)
            | bit_cast::<80, 19>(self.verdicts.head_data.val().get_bits::<19>(0));
        self.dpay.next = (bit_cast::<80, 40>(self.departs.head_data.val().get_bits::<40>(36))
            << 40)
            | bit_cast::<80, 36>(self.departs.head_data.val().get_bits::<36>(0));

        self.verdicts.pop.next = false;
        self.departs.pop.next = false;
        self.resp_sent.next = false;
        self.tx_valid.next = false;
        self.thead.next = self.f_start.val();
        match self.tkind.q.val().index() {
            0 => self.thead.next = self.f_hello.val(),
            1 => self.thead.next = self.f_read.val(),
            2 => self.thead.next = self.f_write.val(),
            4 => self.thead.next = self.f_inject.val(),
            5 => self.thead.next = self.f_error.val(),
            6 => self.thead.next = self.f_verdict.val(),
            7 => self.thead.next = self.f_depart.val(),
            _ => {}
        }
        self.tlen.next = self.thead.val().get_bits::<8>(0);
        self.tcmd.next = self.thead.val().get_bits::<8>(8);
        self.tlast.next = self.thead.val().get_bits::<5>(16);
        // HELLO_OK's payload byte at tidx (payload byte tidx - 3).
        self.hbyte.next = self.vlat.val();
        match self.tidx.q.val().index() {
            3 => self.hbyte.next = self.version.val(),
            4 => self.hbyte.next = self.core_id.val().get_bits::<8>(0),
            5 => self.hbyte.next = self.core_id.val().get_bits::<8>(8),
            6 => self.hbyte.next = self.core_id.val().get_bits::<8>(16),
            7 => self.hbyte.next = self.core_id.val().get_bits::<8>(24),
            8 => self.hbyte.next = self.nspc32.val().get_bits::<8>(0),
            9 => self.hbyte.next = self.nspc32.val().get_bits::<8>(8),
            10 => self.hbyte.next = self.nspc32.val().get_bits::<8>(16),
            11 => self.hbyte.next = self.nspc32.val().get_bits::<8>(24),
            12 => self.hbyte.next = self.cpb.val().get_bits::<8>(0),
            13 => self.hbyte.next = self.cpb.val().get_bits::<8>(8),
            14 => self.hbyte.next = self.capacity.val().get_bits::<8>(0),
            15 => self.hbyte.next = self.capacity.val().get_bits::<8>(8),
            16 => self.hbyte.next = self.depth.val().get_bits::<8>(0),
            17 => self.hbyte.next = self.depth.val().get_bits::<8>(8),
            _ => {}
        }
        self.tbyte.next = self.tsh.q.val().get_bits::<8>(0);
        if !self.tkind.q.val().any() {
            self.tbyte.next = self.hbyte.val();
        }
        if self.tidx.q.val() == 0 {
            self.tbyte.next = self.sync.val();
        }
        if self.tidx.q.val() == 1 {
            self.tbyte.next = self.tlen.val();
        }
        if self.tidx.q.val() == 2 {
            self.tbyte.next = self.tcmd.val();
        }
        if self.tend.q.val() {
            self.tbyte.next = self.tcrc.q.val();
        }
        self.tx_data.next = self.tbyte.val();
        self.crc_step.crc.next = self.tcrc.q.val();
        self.crc_step.data.next = self.tbyte.val();

        // An answer's first payload byte.
        self.lead.next = self.addr.val();
        if self.resp_kind.val() == 4 {
            self.lead.next = self.inj_done.val();
        }
        if self.resp_kind.val() == 5 {
            self.lead.next = self.command.val();
        }
        match self.tstate.q.val() {
            TxState::Idle => {
                self.tidx.d.next = 0.into();
                self.tend.d.next = false;
                self.tcrc.d.next = 0.into();
                self.tsh.d.next = self.dpay.val();
                if self.resp_pending.val() {
                    self.tkind.d.next = self.resp_kind.val();
                    self.tsh.d.next = (bit_cast::<80, 40>(self.value.val()) << 8)
                        | bit_cast::<80, 8>(self.lead.val());
                    self.tstate.d.next = TxState::Send;
                } else if self.verdicts.head_valid.val() {
                    self.tkind.d.next = 6.into();
                    self.tsh.d.next = self.vpay.val();
                    self.tstate.d.next = TxState::Send;
                } else if self.departs.head_valid.val() {
                    self.tkind.d.next = 7.into();
                    self.tstate.d.next = TxState::Send;
                }
            }
            TxState::Send => {
                self.tx_valid.next = true;
                if self.tx_ready.val() {
                    self.tidx.d.next = self.tidx.q.val() + 1;
                    self.tend.d.next = (self.tidx.q.val() + 1) == self.tlast.val();
                    if self.tidx.q.val().any() {
                        self.tcrc.d.next = self.crc_step.out.val();
                    }
                    if self.tidx.q.val() >= 3 {
                        self.tsh.d.next = self.tsh.q.val() >> 8;
                    }
                    if self.tend.q.val() {
                        // The last byte: release the answer or the event.
                        self.tstate.d.next = TxState::Idle;
                        if self.tkind.q.val() == 6 {
                            self.verdicts.pop.next = true;
                        } else if self.tkind.q.val() == 7 {
                            self.departs.pop.next = true;
                        } else {
                            self.resp_sent.next = true;
                        }
                    }
                }
            }
            _ => {
                self.tstate.d.next = TxState::Idle;
            }
        }
        if self.rst.val() {
            self.tstate.d.next = TxState::Idle;
            self.tend.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::executor::kind;
    use super::*;
    use aqm_hdl::sim::{clock_edge, settle};
    use aqm_protocol::{Decoded, Decoder, Departure, Frame, Message};

    const CPB: u64 = 4;
    const NSPC: u64 = 25;
    const VLAT: u64 = 5;
    const ID: u64 = 0x5049_4531;
    const CAP: u64 = 1024;
    type F = Framer<CPB, NSPC, VLAT, ID, CAP>;

    struct Tb {
        f: F,
        decoder: Decoder,
        frames: Vec<Frame>,
        cycle: u64,
        /// The UART takes a byte on cycles where this is true.
        ready: fn(u64) -> bool,
        sent: u64,
    }

    /// A verdict or departure from the core, one cycle.
    #[derive(Clone, Copy)]
    enum Event {
        None,
        Verdict(u16, u8, bool),
        Depart(u16, u16, u8, bool, bool, u64),
    }

    impl Tb {
        fn new(ready: fn(u64) -> bool) -> Tb {
            let mut f = F::default();
            f.connect_all();
            let mut tb = Tb {
                f,
                decoder: Decoder::new(),
                frames: vec![],
                cycle: 0,
                ready,
                sent: 0,
            };
            tb.f.rst.next = true;
            tb.step(Event::None);
            tb.f.rst.next = false;
            tb
        }

        fn step(&mut self, ev: Event) {
            let f = &mut self.f;
            f.stamp.next = (self.cycle * NSPC).to_bits();
            f.events.verdict_valid.next = false;
            f.events.out_valid.next = false;
            match ev {
                Event::None => {}
                Event::Verdict(tag, code, queue) => {
                    f.events.verdict_valid.next = true;
                    f.events.verdict_tag.next = (tag as u64).to_bits();
                    f.events.verdict_code.next = (code as u64).to_bits();
                    f.events.verdict_queue.next = queue;
                }
                Event::Depart(tag, len, ecn, drop, queue, soj) => {
                    f.events.out_valid.next = true;
                    f.events.out_tag.next = (tag as u64).to_bits();
                    f.events.out_len.next = (len as u64).to_bits();
                    f.events.out_ecn.next = (ecn as u64).to_bits();
                    f.events.out_drop.next = drop;
                    f.events.out_queue.next = queue;
                    f.events.out_sojourn.next = soj.to_bits();
                }
            }
            let take = (self.ready)(self.cycle);
            f.tx_ready.next = take;
            settle(f);
            if f.resp_sent.val() {
                self.sent += 1;
                // The executor drops the answer after its last byte.
                f.resp_pending.next = false;
            }
            if f.tx_valid.val() && take {
                if let Some(d) = self.decoder.push(f.tx_data.val().to_u8()) {
                    match d {
                        Decoded::Frame(fr) => self.frames.push(fr),
                        Decoded::BadCrc { cmd } => {
                            panic!("bad CRC from the framer, cmd 0x{cmd:02X}")
                        }
                    }
                }
            }
            clock_edge(f, |f| &mut f.clock);
            self.cycle += 1;
        }

        /// Every frame sent so far, decoded.
        fn messages(&self) -> Vec<Message> {
            let decode = |f| Message::decode(f).expect("a frame of the protocol");
            self.frames.iter().map(decode).collect()
        }

        /// Sends the answer `k` with the fields given; returns its message.
        fn answer(&mut self, k: u64, set: impl Fn(&mut F)) -> Message {
            set(&mut self.f);
            self.f.resp_kind.next = k.to_bits();
            self.f.resp_pending.next = true;
            let (n, sent) = (self.frames.len(), self.sent);
            for _ in 0..2000 {
                self.step(Event::None);
                if self.sent > sent {
                    break;
                }
            }
            assert_eq!(self.sent, sent + 1, "answer {k}: resp_sent once");
            for _ in 0..10 {
                self.step(Event::None);
            }
            assert_eq!(self.frames.len(), n + 1, "answer {k}: one frame");
            Message::decode(&self.frames[n]).expect("a frame of the protocol")
        }
    }

    fn every_third(c: u64) -> bool {
        c.is_multiple_of(3)
    }

    #[test]
    fn every_answer_is_framed_at_the_uarts_pace() {
        for ready in [(|_| true) as fn(u64) -> bool, every_third, |c| c % 40 < 5] {
            let mut tb = Tb::new(ready);
            assert_eq!(
                tb.answer(kind::HELLO, |_| {}),
                Message::Hello(aqm_protocol::BoardInfo {
                    version: VERSION,
                    core_id: ID as u32,
                    ns_per_cycle: NSPC as u32,
                    cycles_per_bit: CPB as u16,
                    capacity: CAP as u16,
                    event_depth: 256,
                    verdict_latency: VLAT as u8
                })
            );
            let ok = [
                (
                    kind::READ,
                    0x21u64,
                    0x8765_4321u64,
                    Message::ReadOk {
                        addr: 0x21,
                        value: 0x8765_4321,
                    },
                ),
                (
                    kind::WRITE,
                    0x10u64,
                    0xAB_CDEF_0123u64,
                    Message::WriteOk {
                        addr: 0x10,
                        time: 0xAB_CDEF_0123,
                    },
                ),
            ];
            for (k, addr, value, want) in ok {
                let got = tb.answer(k, |f| {
                    f.addr.next = addr.to_bits();
                    f.value.next = value.to_bits();
                });
                assert_eq!(got, want);
            }
            assert_eq!(tb.answer(kind::START, |_| {}), Message::StartOk);
            let inj = tb.answer(kind::INJECT, |f| f.inj_done.next = 32.into());
            assert_eq!(inj, Message::InjectOk { count: 32 });
            for code in 1..=5u64 {
                let e = tb.answer(kind::ERROR, |f| {
                    f.command.next = 0x42.into();
                    f.value.next = code.to_bits();
                });
                assert_eq!(
                    e,
                    Message::Error {
                        cmd: 0x42,
                        code: code as u8
                    }
                );
            }
        }
    }

    #[test]
    fn the_answer_goes_first_then_verdicts_then_departures_in_order() {
        let mut tb = Tb::new(every_third);
        tb.f.resp_kind.next = kind::START.to_bits();
        tb.f.resp_pending.next = false;
        // A verdict frame is on its way when the rest arrives; then the answer goes first.
        let t0 = tb.cycle;
        tb.step(Event::Verdict(1, 0, false));
        tb.step(Event::Depart(7, 1500, 2, true, true, 0x12_3456_789A));
        tb.step(Event::Verdict(0xBEEF, 3, true));
        tb.step(Event::Verdict(0x0102, 1, false));
        tb.f.resp_pending.next = true;
        for _ in 0..2000 {
            tb.step(Event::None);
        }
        let got = tb.messages();
        let verdict = |tag, code, queue, c: u64| Message::Verdict {
            tag,
            code,
            queue,
            time: c * NSPC,
        };
        assert_eq!(
            got,
            vec![
                verdict(1, 0, 0, t0),
                Message::StartOk,
                verdict(0xBEEF, 3, 1, t0 + 2),
                verdict(0x0102, 1, 0, t0 + 3),
                Message::Depart(Departure {
                    tag: 7,
                    len: 1500,
                    ecn: 2,
                    dropped: true,
                    queue: 1,
                    sojourn_ns: 0x12_3456_789A
                }),
            ]
        );
        assert_eq!(tb.sent, 1);
        assert_eq!(
            tb.f.verdict_count.val().to_u64() + tb.f.depart_count.val().to_u64(),
            0
        );
    }

    #[test]
    fn events_wait_in_their_fifos_while_the_uart_is_stalled() {
        let mut tb = Tb::new(|c| c > 400);
        for k in 0..20u16 {
            tb.step(Event::Verdict(k, 0, false));
            tb.step(Event::Depart(k, 100 + k, 0, false, false, k as u64));
        }
        // The heads of both stay (one verdict frame is in progress at most).
        settle(&mut tb.f);
        assert!(tb.f.verdict_count.val().to_u64() >= 19);
        assert_eq!(tb.f.depart_count.val().to_u64(), 20);
        while tb.cycle < 400 + 40 * 30 * 3 {
            tb.step(Event::None);
        }
        let got = tb.messages();
        assert_eq!(got.len(), 40);
        for (k, m) in got[..20].iter().enumerate() {
            assert!(
                matches!(m, Message::Verdict { tag, .. } if *tag as usize == k),
                "{m:?}"
            );
        }
        for (k, m) in got[20..].iter().enumerate() {
            assert!(
                matches!(m, Message::Depart(d) if d.tag as usize == k && d.len as usize == 100 + k),
                "{m:?}"
            );
        }
    }
}
