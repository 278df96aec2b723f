//! The protocol bridge: frames from the UART to the core's register bus and ingress, responses and
//! events from the core back to the UART (see `aqm_protocol` for the protocol).
//!
//! ```text
//! UART rx -> parser (sync, len, cmd, payload into a 256-byte buffer, CRC, timeout)
//!         -> executor: HELLO | READ | WRITE | START | INJECT   -> response register --+
//! core verdicts   -> verdict FIFO (256) ----------------------------------------------+-> framer -> UART tx
//! core departures -> departure FIFO (256) --------------------------------------------+
//! ```
//! The core's `out_ready` stays high, so departures never wait for the UART: instead the executor
//! admits a descriptor only when the departure FIFO has room for every packet the core still holds (and
//! the verdict FIFO for every verdict in flight). Verdicts come a fixed `VLAT` cycles after acceptance,
//! so each is stamped with the time it comes out and the host subtracts the latency (HELLO reports it).

use aqm_hdl::bram::BlockRam;
use aqm_hdl::desc_queue::DescQueue;
use aqm_hdl::konst::K;
use aqm_protocol::{cmd, SYNC, VERSION};
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum RxState {
    Idle,
    Len,
    Cmd,
    Payload,
    Crc,
    Exec,
    Fetch,
    ReadWait,
    WriteWait,
    InjectOffer,
    Respond,
}

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum TxState {
    Idle,
    Send,
}

/// `CPB`: UART cycles per bit; `NSPC`: ns per clock cycle (the core's time step); `VLAT`: the core's
/// verdict latency; `ID`: the core's ID register value; `CAP`: its descriptor capacity.
#[derive(LogicBlock, Default)]
pub struct Bridge<const CPB: u64, const NSPC: u64, const VLAT: u64, const ID: u64, const CAP: u64> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    // UART side.
    pub rx_data: Signal<In, Bits<8>>,
    pub rx_valid: Signal<In, Bit>,
    pub tx_data: Signal<Out, Bits<8>>,
    pub tx_valid: Signal<Out, Bit>,
    pub tx_ready: Signal<In, Bit>,
    // Core side.
    pub core_rst: Signal<Out, Bit>,
    pub now: Signal<Out, Bits<64>>, // ns = 10 x cycle
    pub in_valid: Signal<Out, Bit>,
    pub in_ready: Signal<In, Bit>,
    pub in_len: Signal<Out, Bits<16>>,
    pub in_ecn: Signal<Out, Bits<2>>,
    pub in_tag: Signal<Out, Bits<16>>,
    pub verdict_valid: Signal<In, Bit>,
    pub verdict_tag: Signal<In, Bits<16>>,
    pub verdict_code: Signal<In, Bits<2>>,
    pub verdict_queue: Signal<In, Bit>,
    pub out_valid: Signal<In, Bit>,
    pub out_ready: Signal<Out, Bit>,
    pub out_len: Signal<In, Bits<16>>,
    pub out_ecn: Signal<In, Bits<2>>,
    pub out_tag: Signal<In, Bits<16>>,
    pub out_sojourn: Signal<In, Bits<40>>,
    pub out_queue: Signal<In, Bit>,
    pub out_drop: Signal<In, Bit>,
    pub reg_addr: Signal<Out, Bits<8>>,
    pub reg_wdata: Signal<Out, Bits<32>>,
    pub reg_we: Signal<Out, Bit>,
    pub reg_re: Signal<Out, Bit>,
    pub reg_rdata: Signal<In, Bits<32>>,
    pub reg_rvalid: Signal<In, Bit>,
    pub reg_err: Signal<In, Bit>,
    // Activity, one cycle each, for the LEDs.
    pub frame_ok: Signal<Out, Bit>,
    pub frame_err: Signal<Out, Bit>,

    rstate: DFF<RxState>,
    len: DFF<Bits<8>>,
    command: DFF<Bits<8>>,
    crc: DFF<Bits<8>>,
    pidx: DFF<Bits<8>>,
    /// Payload bytes received, modulo 5 (an INJECT payload is whole descriptors).
    m5: DFF<Bits<3>>,
    idle_cnt: DFF<Bits<16>>,
    fcnt: DFF<Bits<3>>,
    fbase: DFF<Bits<8>>,
    fsh: DFF<Bits<40>>,
    wait_cnt: DFF<Bits<2>>,
    write_cycle: DFF<Bits<40>>,
    inj_done: DFF<Bits<8>>,
    now_r: DFF<Bits<40>>,
    in_core: DFF<Bits<16>>,
    resp_pending: DFF<Bit>,
    resp_kind: DFF<Bits<3>>,
    rdata: DFF<Bits<32>>,
    err_code: DFF<Bits<3>>,
    tstate: DFF<TxState>,
    /// The frame being sent: 0 HELLO_OK, 1 READ_OK, 2 WRITE_OK, 3 START_OK, 4 INJECT_OK, 5 ERROR,
    /// 6 VERDICT, 7 DEPART.
    tkind: DFF<Bits<3>>,
    tidx: DFF<Bits<8>>,
    tcrc: DFF<Bits<8>>,
    ok_pulse: DFF<Bit>,
    rst_r: DFF<Bit>,
    offer: DFF<Bit>,
    we_r: DFF<Bit>,
    re_r: DFF<Bit>,
    err_pulse: DFF<Bit>,
    payload: BlockRam<8, 8>,
    verdicts: DescQueue<59, 8, 9>,
    departs: DescQueue<76, 8, 9>,
    // Combinational helpers.
    byte_in: Signal<Local, Bit>,
    crc_t: Signal<Local, Bits<8>>,
    crc_n: Signal<Local, Bits<8>>,
    tcrc_t: Signal<Local, Bits<8>>,
    tcrc_n: Signal<Local, Bits<8>>,
    tbyte: Signal<Local, Bits<8>>,
    fail: Signal<Local, Bit>,
    fail_code: Signal<Local, Bits<3>>,
    tlen: Signal<Local, Bits<8>>,
    tcmd: Signal<Local, Bits<8>>,
    k: Signal<Local, Bits<8>>,
    room: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    dropped: Signal<Local, Bit>,
    departed: Signal<Local, Bit>,
    cpb: K<16, CPB>,
    vlat: K<8, VLAT>,
    core_id: K<32, ID>,
    capacity: K<16, CAP>,
    sync: K<8, { SYNC as u64 }>,
    version: K<8, { VERSION as u64 }>,
    nspc: K<8, NSPC>,
    nspc32: K<32, NSPC>,
    depth: K<16, 256>,
    c_hello: K<8, { cmd::HELLO as u64 }>,
    c_read: K<8, { cmd::READ as u64 }>,
    c_write: K<8, { cmd::WRITE as u64 }>,
    c_start: K<8, { cmd::START as u64 }>,
    c_inject: K<8, { cmd::INJECT as u64 }>,
    r_hello: K<8, { (cmd::HELLO | cmd::RESPONSE) as u64 }>,
    r_read: K<8, { (cmd::READ | cmd::RESPONSE) as u64 }>,
    r_write: K<8, { (cmd::WRITE | cmd::RESPONSE) as u64 }>,
    r_start: K<8, { (cmd::START | cmd::RESPONSE) as u64 }>,
    r_inject: K<8, { (cmd::INJECT | cmd::RESPONSE) as u64 }>,
    c_error: K<8, { cmd::ERROR as u64 }>,
    c_verdict: K<8, { cmd::VERDICT as u64 }>,
    c_depart: K<8, { cmd::DEPART as u64 }>,
}

impl<const CPB: u64, const NSPC: u64, const VLAT: u64, const ID: u64, const CAP: u64> Logic
    for Bridge<CPB, NSPC, VLAT, ID, CAP>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            rstate,
            len,
            command,
            crc,
            pidx,
            m5,
            idle_cnt,
            fcnt,
            fbase,
            fsh,
            wait_cnt,
            write_cycle,
            inj_done,
            now_r,
            in_core,
            resp_pending,
            resp_kind,
            rdata,
            err_code,
            tstate,
            tkind,
            tidx,
            tcrc,
            ok_pulse,
            err_pulse,
            rst_r,
            offer,
            we_r,
            re_r
        );
        clock!(self, clock, verdicts, departs, payload);
        self.verdicts.rst.next = self.rst.val();
        self.departs.rst.next = self.rst.val();

        // Time since START in ns: NSPC per cycle (the reset cycle is 0).
        self.now_r.d.next = self.now_r.q.val() + bit_cast::<40, 8>(self.nspc.val());
        self.now.next = bit_cast::<64, 40>(self.now_r.q.val());

        // Everything the core sees comes straight from a register.
        self.core_rst.next = self.rst_r.q.val();
        self.in_valid.next = self.offer.q.val();
        self.reg_we.next = self.we_r.q.val();
        self.reg_re.next = self.re_r.q.val();
        self.rst_r.d.next = false;
        self.we_r.d.next = false;
        self.re_r.d.next = false;
        self.reg_addr.next = self.fsh.q.val().get_bits::<8>(0);
        self.reg_wdata.next = self.fsh.q.val().get_bits::<32>(8);
        self.in_len.next = self.fsh.q.val().get_bits::<16>(0);
        self.in_ecn.next = self.fsh.q.val().get_bits::<2>(16);
        self.in_tag.next = self.fsh.q.val().get_bits::<16>(24);
        self.out_ready.next = true;
        self.ok_pulse.d.next = false;
        self.err_pulse.d.next = false;
        self.payload.write_enable.next = false;
        self.payload.write_address.next = self.pidx.q.val();
        self.payload.write_data.next = self.rx_data.val();
        self.payload.read_address.next = self.fbase.q.val() + bit_cast::<8, 3>(self.fcnt.q.val());

        // CRC-8 (0x07) of one more received byte, as an XOR network.
        self.crc_t.next = self.crc.q.val() ^ self.rx_data.val();
        self.crc_n.next = bit_cast::<8, 1>(
            (self.crc_t.val().get_bit(0)
                ^ self.crc_t.val().get_bit(6)
                ^ self.crc_t.val().get_bit(7))
            .into(),
        ) | (bit_cast::<8, 1>(
            (self.crc_t.val().get_bit(0)
                ^ self.crc_t.val().get_bit(1)
                ^ self.crc_t.val().get_bit(6))
            .into(),
        ) << 1)
            | (bit_cast::<8, 1>(
                (self.crc_t.val().get_bit(0)
                    ^ self.crc_t.val().get_bit(1)
                    ^ self.crc_t.val().get_bit(2)
                    ^ self.crc_t.val().get_bit(6))
                .into(),
            ) << 2)
            | (bit_cast::<8, 1>(
                (self.crc_t.val().get_bit(1)
                    ^ self.crc_t.val().get_bit(2)
                    ^ self.crc_t.val().get_bit(3)
                    ^ self.crc_t.val().get_bit(7))
                .into(),
            ) << 3)
            | (bit_cast::<8, 1>(
                (self.crc_t.val().get_bit(2)
                    ^ self.crc_t.val().get_bit(3)
                    ^ self.crc_t.val().get_bit(4))
                .into(),
            ) << 4)
            | (bit_cast::<8, 1>(
                (self.crc_t.val().get_bit(3)
                    ^ self.crc_t.val().get_bit(4)
                    ^ self.crc_t.val().get_bit(5))
                .into(),
            ) << 5)
            | (bit_cast::<8, 1>(
                (self.crc_t.val().get_bit(4)
                    ^ self.crc_t.val().get_bit(5)
                    ^ self.crc_t.val().get_bit(6))
                .into(),
            ) << 6)
            | (bit_cast::<8, 1>(
                (self.crc_t.val().get_bit(5)
                    ^ self.crc_t.val().get_bit(6)
                    ^ self.crc_t.val().get_bit(7))
                .into(),
            ) << 7);

        // Admission: room in the event FIFOs for everything the core may still report.
        self.room.next = (self.verdicts.count.val() < 240)
            & ((bit_cast::<16, 9>(self.departs.count.val()) + self.in_core.q.val()) < 240);

        // The parser and executor.
        self.byte_in.next = self.rx_valid.val();
        self.fail.next = false;
        self.fail_code.next = 0.into();
        self.accept.next = false;
        self.idle_cnt.d.next = self.idle_cnt.q.val() + 1;
        if self.byte_in.val() {
            self.idle_cnt.d.next = 0.into();
        }
        match self.rstate.q.val() {
            RxState::Idle => {
                if self.byte_in.val() & (self.rx_data.val() == self.sync.val()) {
                    self.rstate.d.next = RxState::Len;
                    self.command.d.next = 0.into();
                    self.crc.d.next = 0.into();
                }
            }
            RxState::Len => {
                if self.byte_in.val() {
                    self.len.d.next = self.rx_data.val();
                    self.crc.d.next = self.crc_n.val();
                    self.rstate.d.next = RxState::Cmd;
                }
            }
            RxState::Cmd => {
                if self.byte_in.val() {
                    self.command.d.next = self.rx_data.val();
                    self.crc.d.next = self.crc_n.val();
                    self.pidx.d.next = 0.into();
                    self.m5.d.next = 0.into();
                    if self.len.q.val().any() {
                        self.rstate.d.next = RxState::Payload;
                    } else {
                        self.rstate.d.next = RxState::Crc;
                    }
                }
            }
            RxState::Payload => {
                if self.byte_in.val() {
                    self.payload.write_enable.next = true;
                    self.crc.d.next = self.crc_n.val();
                    self.pidx.d.next = self.pidx.q.val() + 1;
                    self.m5.d.next = self.m5.q.val() + 1;
                    if self.m5.q.val() == 4 {
                        self.m5.d.next = 0.into();
                    }
                    if self.pidx.q.val() == (self.len.q.val() - 1) {
                        self.rstate.d.next = RxState::Crc;
                    }
                }
            }
            RxState::Crc => {
                if self.byte_in.val() {
                    if self.rx_data.val() == self.crc.q.val() {
                        self.rstate.d.next = RxState::Exec;
                    } else {
                        self.fail.next = true;
                        self.fail_code.next = 1.into();
                    }
                }
            }
            RxState::Exec => {
                self.fbase.d.next = 0.into();
                self.fcnt.d.next = 0.into();
                self.inj_done.d.next = 0.into();
                if self.command.q.val() == self.c_hello.val() {
                    if self.len.q.val().any() {
                        self.fail.next = true;
                        self.fail_code.next = 4.into();
                    } else {
                        self.resp_pending.d.next = true;
                        self.resp_kind.d.next = 0.into();
                        self.rstate.d.next = RxState::Respond;
                    }
                } else if self.command.q.val() == self.c_read.val() {
                    if self.len.q.val() != 1 {
                        self.fail.next = true;
                        self.fail_code.next = 4.into();
                    } else {
                        self.rstate.d.next = RxState::Fetch;
                    }
                } else if self.command.q.val() == self.c_write.val() {
                    if self.len.q.val() != 5 {
                        self.fail.next = true;
                        self.fail_code.next = 4.into();
                    } else {
                        self.rstate.d.next = RxState::Fetch;
                    }
                } else if self.command.q.val() == self.c_start.val() {
                    if self.len.q.val().any() {
                        self.fail.next = true;
                        self.fail_code.next = 4.into();
                    } else {
                        // The next cycle is the core's reset cycle, at time 0.
                        self.rst_r.d.next = true;
                        self.now_r.d.next = 0.into();
                        self.in_core.d.next = 0.into();
                        self.resp_pending.d.next = true;
                        self.resp_kind.d.next = 3.into();
                        self.rstate.d.next = RxState::Respond;
                    }
                } else if self.command.q.val() == self.c_inject.val() {
                    // 1..=32 descriptors of 5 bytes: the payload counted modulo 5 came out even.
                    if self.len.q.val().any() & (self.len.q.val() <= 160) & (self.m5.q.val() == 0) {
                        self.rstate.d.next = RxState::Fetch;
                    } else {
                        self.fail.next = true;
                        self.fail_code.next = 4.into();
                    }
                } else {
                    self.fail.next = true;
                    self.fail_code.next = 3.into();
                }
            }
            RxState::Fetch => {
                // Five payload bytes from fbase into fsh, least significant first: the RAM answers a
                // cycle after its address, so byte k lands at fcnt = k + 1 and all five are in at 6.
                self.fcnt.d.next = self.fcnt.q.val() + 1;
                if self.fcnt.q.val().any() & (self.fcnt.q.val() <= 5) {
                    self.fsh.d.next = (self.fsh.q.val() >> 8)
                        | (bit_cast::<40, 8>(self.payload.read_data.val()) << 32);
                }
                if self.fcnt.q.val() == 6 {
                    self.fcnt.d.next = 0.into();
                    if self.command.q.val() == self.c_read.val() {
                        self.re_r.d.next = true;
                        self.rstate.d.next = RxState::ReadWait;
                    } else if self.command.q.val() == self.c_write.val() {
                        // The core sees the write next cycle (WriteWait's first), one time step later.
                        self.we_r.d.next = true;
                        self.wait_cnt.d.next = 0.into();
                        self.rstate.d.next = RxState::WriteWait;
                    } else {
                        self.rstate.d.next = RxState::InjectOffer;
                    }
                }
            }
            RxState::ReadWait => {
                if self.reg_rvalid.val() {
                    if self.reg_err.val() {
                        self.fail.next = true;
                        self.fail_code.next = 5.into();
                    } else {
                        self.resp_pending.d.next = true;
                        self.resp_kind.d.next = 1.into();
                        self.rdata.d.next = self.reg_rdata.val();
                        self.rstate.d.next = RxState::Respond;
                    }
                }
            }
            RxState::WriteWait => {
                // The core applies the write a cycle after taking it and flags a refusal the cycle after.
                self.wait_cnt.d.next = self.wait_cnt.q.val() + 1;
                if self.wait_cnt.q.val() == 0 {
                    // The time of the cycle in which the core takes the write.
                    self.write_cycle.d.next = self.now_r.q.val();
                }
                if self.reg_err.val() {
                    self.fail.next = true;
                    self.fail_code.next = 5.into();
                } else if self.wait_cnt.q.val() == 2 {
                    self.resp_pending.d.next = true;
                    self.resp_kind.d.next = 2.into();
                    self.rstate.d.next = RxState::Respond;
                }
            }
            RxState::InjectOffer => {
                // Offer when the event FIFOs have room; the core takes it when in_ready.
                if !self.offer.q.val() {
                    self.offer.d.next = self.room.val();
                }
                if self.offer.q.val() & self.in_ready.val() {
                    self.offer.d.next = false;
                    self.accept.next = true;
                    self.inj_done.d.next = self.inj_done.q.val() + 1;
                    self.fbase.d.next = self.fbase.q.val() + 5;
                    if (self.fbase.q.val() + 5) == self.len.q.val() {
                        self.resp_pending.d.next = true;
                        self.resp_kind.d.next = 4.into();
                        self.rstate.d.next = RxState::Respond;
                    } else {
                        self.rstate.d.next = RxState::Fetch;
                    }
                }
            }
            RxState::Respond => {
                if !self.resp_pending.q.val() {
                    self.ok_pulse.d.next = true;
                    self.rstate.d.next = RxState::Idle;
                }
            }
            _ => {
                self.rstate.d.next = RxState::Idle;
            }
        }
        // A frame that stops for 128 bit times (about 13 byte times) mid-way is truncated.
        if ((self.rstate.q.val() == RxState::Len)
            | (self.rstate.q.val() == RxState::Cmd)
            | (self.rstate.q.val() == RxState::Payload)
            | (self.rstate.q.val() == RxState::Crc))
            & (self.idle_cnt.q.val() == (self.cpb.val() << 7))
        {
            self.fail.next = true;
            self.fail_code.next = 2.into();
        }
        if self.fail.val() {
            self.resp_pending.d.next = true;
            self.resp_kind.d.next = 5.into();
            self.err_code.d.next = self.fail_code.val();
            self.err_pulse.d.next = true;
            self.rstate.d.next = RxState::Respond;
        }

        // Events into their FIFOs. Verdicts are stamped with the time they come out: the descriptor was
        // accepted `VLAT` cycles earlier.
        self.verdicts.push.next = self.verdict_valid.val();
        self.verdicts.push_data.next = (bit_cast::<59, 40>(self.now_r.q.val()) << 19)
            | (bit_cast::<59, 1>(self.verdict_queue.val().into()) << 18)
            | (bit_cast::<59, 2>(self.verdict_code.val()) << 16)
            | bit_cast::<59, 16>(self.verdict_tag.val());
        self.departed.next = self.out_valid.val();
        self.departs.push.next = self.departed.val();
        self.departs.push_data.next = (bit_cast::<76, 40>(self.out_sojourn.val()) << 36)
            | (bit_cast::<76, 1>(self.out_queue.val().into()) << 35)
            | (bit_cast::<76, 1>(self.out_drop.val().into()) << 34)
            | (bit_cast::<76, 2>(self.out_ecn.val()) << 32)
            | (bit_cast::<76, 16>(self.out_len.val()) << 16)
            | bit_cast::<76, 16>(self.out_tag.val());
        // Packets the core still holds: accepted, minus dropped verdicts, minus departures.
        self.dropped.next = self.verdict_valid.val() & self.verdict_code.val().get_bit(1);
        if self.accept.val() & !self.dropped.val() & !self.departed.val() {
            self.in_core.d.next = self.in_core.q.val() + 1;
        }
        if !self.accept.val() & self.dropped.val() & !self.departed.val() {
            self.in_core.d.next = self.in_core.q.val() - 1;
        }
        if !self.accept.val() & !self.dropped.val() & self.departed.val() {
            self.in_core.d.next = self.in_core.q.val() - 1;
        }
        if !self.accept.val() & self.dropped.val() & self.departed.val() {
            self.in_core.d.next = self.in_core.q.val() - 2;
        }
        if self.accept.val() & self.dropped.val() & self.departed.val() {
            self.in_core.d.next = self.in_core.q.val() - 1;
        }

        // The framer: a response first, then verdicts, then departures. A frame is built byte by byte
        // from its fields (held until its last byte: the executor waits in Respond, a FIFO head stays
        // until it is popped at the end).
        self.verdicts.pop.next = false;
        self.departs.pop.next = false;
        self.tx_valid.next = false;
        self.tlen.next = 0.into();
        self.tcmd.next = self.r_start.val();
        match self.tkind.q.val().index() {
            0 => {
                self.tlen.next = 16.into();
                self.tcmd.next = self.r_hello.val();
            }
            1 => {
                self.tlen.next = 5.into();
                self.tcmd.next = self.r_read.val();
            }
            2 => {
                self.tlen.next = 6.into();
                self.tcmd.next = self.r_write.val();
            }
            4 => {
                self.tlen.next = 1.into();
                self.tcmd.next = self.r_inject.val();
            }
            5 => {
                self.tlen.next = 2.into();
                self.tcmd.next = self.c_error.val();
            }
            6 => {
                self.tlen.next = 8.into();
                self.tcmd.next = self.c_verdict.val();
            }
            7 => {
                self.tlen.next = 10.into();
                self.tcmd.next = self.c_depart.val();
            }
            _ => {}
        }
        // Payload byte k = tidx - 3 of the frame's kind.
        self.k.next = self.tidx.q.val() - 3;
        self.tbyte.next = 0.into();
        match self.tkind.q.val().index() {
            0 => match self.k.val().index() {
                0 => {
                    self.tbyte.next = self.version.val();
                }
                1 => {
                    self.tbyte.next = self.core_id.val().get_bits::<8>(0);
                }
                2 => {
                    self.tbyte.next = self.core_id.val().get_bits::<8>(8);
                }
                3 => {
                    self.tbyte.next = self.core_id.val().get_bits::<8>(16);
                }
                4 => {
                    self.tbyte.next = self.core_id.val().get_bits::<8>(24);
                }
                5 => {
                    self.tbyte.next = self.nspc32.val().get_bits::<8>(0);
                }
                6 => {
                    self.tbyte.next = self.nspc32.val().get_bits::<8>(8);
                }
                7 => {
                    self.tbyte.next = self.nspc32.val().get_bits::<8>(16);
                }
                8 => {
                    self.tbyte.next = self.nspc32.val().get_bits::<8>(24);
                }
                9 => {
                    self.tbyte.next = self.cpb.val().get_bits::<8>(0);
                }
                10 => {
                    self.tbyte.next = self.cpb.val().get_bits::<8>(8);
                }
                11 => {
                    self.tbyte.next = self.capacity.val().get_bits::<8>(0);
                }
                12 => {
                    self.tbyte.next = self.capacity.val().get_bits::<8>(8);
                }
                13 => {
                    self.tbyte.next = self.depth.val().get_bits::<8>(0);
                }
                14 => {
                    self.tbyte.next = self.depth.val().get_bits::<8>(8);
                }
                _ => {
                    self.tbyte.next = self.vlat.val();
                }
            },
            1 => match self.k.val().index() {
                0 => {
                    self.tbyte.next = self.fsh.q.val().get_bits::<8>(0);
                }
                1 => {
                    self.tbyte.next = self.rdata.q.val().get_bits::<8>(0);
                }
                2 => {
                    self.tbyte.next = self.rdata.q.val().get_bits::<8>(8);
                }
                3 => {
                    self.tbyte.next = self.rdata.q.val().get_bits::<8>(16);
                }
                _ => {
                    self.tbyte.next = self.rdata.q.val().get_bits::<8>(24);
                }
            },
            2 => match self.k.val().index() {
                0 => {
                    self.tbyte.next = self.fsh.q.val().get_bits::<8>(0);
                }
                1 => {
                    self.tbyte.next = self.write_cycle.q.val().get_bits::<8>(0);
                }
                2 => {
                    self.tbyte.next = self.write_cycle.q.val().get_bits::<8>(8);
                }
                3 => {
                    self.tbyte.next = self.write_cycle.q.val().get_bits::<8>(16);
                }
                4 => {
                    self.tbyte.next = self.write_cycle.q.val().get_bits::<8>(24);
                }
                _ => {
                    self.tbyte.next = self.write_cycle.q.val().get_bits::<8>(32);
                }
            },
            4 => {
                self.tbyte.next = self.inj_done.q.val();
            }
            5 => {
                self.tbyte.next = self.command.q.val();
                if self.k.val().any() {
                    self.tbyte.next = bit_cast::<8, 3>(self.err_code.q.val());
                }
            }
            6 => match self.k.val().index() {
                // tag u16, code | queue << 2, accepted cycle u40
                0 => {
                    self.tbyte.next = self.verdicts.head_data.val().get_bits::<8>(0);
                }
                1 => {
                    self.tbyte.next = self.verdicts.head_data.val().get_bits::<8>(8);
                }
                2 => {
                    self.tbyte.next =
                        bit_cast::<8, 3>(self.verdicts.head_data.val().get_bits::<3>(16));
                }
                3 => {
                    self.tbyte.next = self.verdicts.head_data.val().get_bits::<8>(19);
                }
                4 => {
                    self.tbyte.next = self.verdicts.head_data.val().get_bits::<8>(27);
                }
                5 => {
                    self.tbyte.next = self.verdicts.head_data.val().get_bits::<8>(35);
                }
                6 => {
                    self.tbyte.next = self.verdicts.head_data.val().get_bits::<8>(43);
                }
                _ => {
                    self.tbyte.next = self.verdicts.head_data.val().get_bits::<8>(51);
                }
            },
            _ => match self.k.val().index() {
                // tag u16, len u16, flags u8 (ecn, dropped << 2, queue << 3), sojourn u40
                0 => {
                    self.tbyte.next = self.departs.head_data.val().get_bits::<8>(0);
                }
                1 => {
                    self.tbyte.next = self.departs.head_data.val().get_bits::<8>(8);
                }
                2 => {
                    self.tbyte.next = self.departs.head_data.val().get_bits::<8>(16);
                }
                3 => {
                    self.tbyte.next = self.departs.head_data.val().get_bits::<8>(24);
                }
                4 => {
                    self.tbyte.next =
                        bit_cast::<8, 4>(self.departs.head_data.val().get_bits::<4>(32));
                }
                5 => {
                    self.tbyte.next = self.departs.head_data.val().get_bits::<8>(36);
                }
                6 => {
                    self.tbyte.next = self.departs.head_data.val().get_bits::<8>(44);
                }
                7 => {
                    self.tbyte.next = self.departs.head_data.val().get_bits::<8>(52);
                }
                8 => {
                    self.tbyte.next = self.departs.head_data.val().get_bits::<8>(60);
                }
                _ => {
                    self.tbyte.next = self.departs.head_data.val().get_bits::<8>(68);
                }
            },
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
        if self.tidx.q.val() == (self.tlen.val() + 3) {
            self.tbyte.next = self.tcrc.q.val();
        }
        self.tx_data.next = self.tbyte.val();
        self.tcrc_t.next = self.tcrc.q.val() ^ self.tbyte.val();
        self.tcrc_n.next = bit_cast::<8, 1>(
            (self.tcrc_t.val().get_bit(0)
                ^ self.tcrc_t.val().get_bit(6)
                ^ self.tcrc_t.val().get_bit(7))
            .into(),
        ) | (bit_cast::<8, 1>(
            (self.tcrc_t.val().get_bit(0)
                ^ self.tcrc_t.val().get_bit(1)
                ^ self.tcrc_t.val().get_bit(6))
            .into(),
        ) << 1)
            | (bit_cast::<8, 1>(
                (self.tcrc_t.val().get_bit(0)
                    ^ self.tcrc_t.val().get_bit(1)
                    ^ self.tcrc_t.val().get_bit(2)
                    ^ self.tcrc_t.val().get_bit(6))
                .into(),
            ) << 2)
            | (bit_cast::<8, 1>(
                (self.tcrc_t.val().get_bit(1)
                    ^ self.tcrc_t.val().get_bit(2)
                    ^ self.tcrc_t.val().get_bit(3)
                    ^ self.tcrc_t.val().get_bit(7))
                .into(),
            ) << 3)
            | (bit_cast::<8, 1>(
                (self.tcrc_t.val().get_bit(2)
                    ^ self.tcrc_t.val().get_bit(3)
                    ^ self.tcrc_t.val().get_bit(4))
                .into(),
            ) << 4)
            | (bit_cast::<8, 1>(
                (self.tcrc_t.val().get_bit(3)
                    ^ self.tcrc_t.val().get_bit(4)
                    ^ self.tcrc_t.val().get_bit(5))
                .into(),
            ) << 5)
            | (bit_cast::<8, 1>(
                (self.tcrc_t.val().get_bit(4)
                    ^ self.tcrc_t.val().get_bit(5)
                    ^ self.tcrc_t.val().get_bit(6))
                .into(),
            ) << 6)
            | (bit_cast::<8, 1>(
                (self.tcrc_t.val().get_bit(5)
                    ^ self.tcrc_t.val().get_bit(6)
                    ^ self.tcrc_t.val().get_bit(7))
                .into(),
            ) << 7);
        match self.tstate.q.val() {
            TxState::Idle => {
                self.tidx.d.next = 0.into();
                self.tcrc.d.next = 0.into();
                if self.resp_pending.q.val() {
                    self.tkind.d.next = self.resp_kind.q.val();
                    self.tstate.d.next = TxState::Send;
                } else if self.verdicts.head_valid.val() {
                    self.tkind.d.next = 6.into();
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
                    if (self.tidx.q.val() >= 1) & (self.tidx.q.val() < (self.tlen.val() + 3)) {
                        self.tcrc.d.next = self.tcrc_n.val();
                    }
                    if self.tidx.q.val() == (self.tlen.val() + 3) {
                        // The last byte: release the response or the event.
                        self.tstate.d.next = TxState::Idle;
                        if self.tkind.q.val() == 6 {
                            self.verdicts.pop.next = true;
                        } else if self.tkind.q.val() == 7 {
                            self.departs.pop.next = true;
                        } else {
                            self.resp_pending.d.next = false;
                        }
                    }
                }
            }
            _ => {
                self.tstate.d.next = TxState::Idle;
            }
        }

        self.frame_ok.next = self.ok_pulse.q.val();
        self.frame_err.next = self.err_pulse.q.val();
        if self.rst.val() {
            self.rst_r.d.next = true;
            self.offer.d.next = false;
            self.we_r.d.next = false;
            self.re_r.d.next = false;
            self.rstate.d.next = RxState::Idle;
            self.tstate.d.next = TxState::Idle;
            self.resp_pending.d.next = false;
            self.now_r.d.next = 0.into();
            self.in_core.d.next = 0.into();
            self.idle_cnt.d.next = 0.into();
        }
    }
}
