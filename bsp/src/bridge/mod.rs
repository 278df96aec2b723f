//! The protocol bridge: frames from the UART to the core's register bus and ingress, answers and events
//! from the core back to the UART (see `aqm_protocol` for the protocol). Three blocks, each with its own
//! test:
//!
//! ```text
//! UART rx -> parser (sync, len, cmd, payload into a 256-byte buffer, CRC, timeout)
//!         -> executor: HELLO | READ | WRITE | START | INJECT -> the answer's kind and fields --+
//! core verdicts   -> verdict FIFO (256) ------------------------------------------------+-> framer -> UART tx
//! core departures -> departure FIFO (256) ----------------------------------------------+
//! ```
//! The parser holds a frame until the executor has answered it (bytes meanwhile are skipped: the host
//! waits for each answer); the executor holds its answer until the framer has sent it. The core's
//! `out_ready` stays high, so departures never wait for the UART: instead the executor admits a
//! descriptor only when the departure FIFO has room for every packet the core still holds (and the
//! verdict FIFO for every verdict in flight). Verdicts come a fixed `VLAT` cycles after acceptance, so
//! each is stamped with the time it comes out and the host subtracts the latency (HELLO reports it).

pub mod executor;
pub mod framer;
pub mod parser;

use executor::Executor;
use framer::Framer;
use parser::Parser;
use rust_hdl::prelude::*;

/// CRC-8 (polynomial 0x07) of one more byte, as an XOR network: `out` is the CRC of the bytes so far
/// (`crc`) and `data`.
#[derive(LogicBlock, Default)]
pub struct Crc8Step {
    pub crc: Signal<In, Bits<8>>,
    pub data: Signal<In, Bits<8>>,
    pub out: Signal<Out, Bits<8>>,
    t: Signal<Local, Bits<8>>,
}

impl Logic for Crc8Step {
    #[hdl_gen]
    fn update(&mut self) {
        self.t.next = self.crc.val() ^ self.data.val();
        self.out.next = bit_cast::<8, 1>(
            (self.t.val().get_bit(0) ^ self.t.val().get_bit(6) ^ self.t.val().get_bit(7)).into(),
        ) | (bit_cast::<8, 1>(
            (self.t.val().get_bit(0) ^ self.t.val().get_bit(1) ^ self.t.val().get_bit(6)).into(),
        ) << 1)
            | (bit_cast::<8, 1>(
                (self.t.val().get_bit(0)
                    ^ self.t.val().get_bit(1)
                    ^ self.t.val().get_bit(2)
                    ^ self.t.val().get_bit(6))
                .into(),
            ) << 2)
            | (bit_cast::<8, 1>(
                (self.t.val().get_bit(1)
                    ^ self.t.val().get_bit(2)
                    ^ self.t.val().get_bit(3)
                    ^ self.t.val().get_bit(7))
                .into(),
            ) << 3)
            | (bit_cast::<8, 1>(
                (self.t.val().get_bit(2) ^ self.t.val().get_bit(3) ^ self.t.val().get_bit(4))
                    .into(),
            ) << 4)
            | (bit_cast::<8, 1>(
                (self.t.val().get_bit(3) ^ self.t.val().get_bit(4) ^ self.t.val().get_bit(5))
                    .into(),
            ) << 5)
            | (bit_cast::<8, 1>(
                (self.t.val().get_bit(4) ^ self.t.val().get_bit(5) ^ self.t.val().get_bit(6))
                    .into(),
            ) << 6)
            | (bit_cast::<8, 1>(
                (self.t.val().get_bit(5) ^ self.t.val().get_bit(6) ^ self.t.val().get_bit(7))
                    .into(),
            ) << 7);
    }
}

/// The core's ports that the bridge drives, and their answers: reset, the descriptor stream and the
/// register bus (the core's `rst`, `in_*` and `reg_*`).
#[derive(LogicInterface, Default)]
pub struct CoreDrive {
    pub rst: Signal<Out, Bit>,
    pub in_valid: Signal<Out, Bit>,
    pub in_ready: Signal<In, Bit>,
    pub in_len: Signal<Out, Bits<16>>,
    pub in_ecn: Signal<Out, Bits<2>>,
    pub in_tag: Signal<Out, Bits<16>>,
    pub reg_addr: Signal<Out, Bits<8>>,
    pub reg_wdata: Signal<Out, Bits<32>>,
    pub reg_we: Signal<Out, Bit>,
    pub reg_re: Signal<Out, Bit>,
    pub reg_rdata: Signal<In, Bits<32>>,
    pub reg_rvalid: Signal<In, Bit>,
    pub reg_err: Signal<In, Bit>,
}

/// The core's verdict and egress streams, as the bridge takes them (its `out_ready` stays high).
#[derive(LogicInterface, Default)]
pub struct CoreEvents {
    pub verdict_valid: Signal<In, Bit>,
    pub verdict_tag: Signal<In, Bits<16>>,
    pub verdict_code: Signal<In, Bits<2>>,
    pub verdict_queue: Signal<In, Bit>,
    pub out_valid: Signal<In, Bit>,
    pub out_len: Signal<In, Bits<16>>,
    pub out_ecn: Signal<In, Bits<2>>,
    pub out_tag: Signal<In, Bits<16>>,
    pub out_sojourn: Signal<In, Bits<40>>,
    pub out_queue: Signal<In, Bit>,
    pub out_drop: Signal<In, Bit>,
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
    pub core: CoreDrive,
    pub now: Signal<Out, Bits<64>>,
    pub out_ready: Signal<Out, Bit>,
    pub events: CoreEvents,
    // Activity, one cycle each, for the LEDs.
    pub frame_ok: Signal<Out, Bit>,
    pub frame_err: Signal<Out, Bit>,
    parser: Parser<CPB>,
    executor: Executor<NSPC>,
    framer: Framer<CPB, NSPC, VLAT, ID, CAP>,
}

impl<const CPB: u64, const NSPC: u64, const VLAT: u64, const ID: u64, const CAP: u64> Logic
    for Bridge<CPB, NSPC, VLAT, ID, CAP>
{
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, parser, executor, framer);
        self.parser.rst.next = self.rst.val();
        self.executor.rst.next = self.rst.val();
        self.framer.rst.next = self.rst.val();

        // UART rx -> parser -> executor.
        self.parser.rx_data.next = self.rx_data.val();
        self.parser.rx_valid.next = self.rx_valid.val();
        self.executor.ready.next = self.parser.ready.val();
        self.executor.status.next = self.parser.status.val();
        self.executor.len.next = self.parser.len.val();
        self.executor.command.next = self.parser.command.val();
        self.executor.whole.next = self.parser.whole.val();
        self.parser.done.next = self.executor.done.val();
        self.parser.read_address.next = self.executor.read_address.val();
        self.executor.read_data.next = self.parser.read_data.val();

        // Executor <-> core; core events -> executor and framer.
        CoreDrive::link(&mut self.core, &mut self.executor.core);
        CoreEvents::link(&mut self.events, &mut self.executor.events);
        CoreEvents::link(&mut self.events, &mut self.framer.events);
        self.now.next = bit_cast::<64, 40>(self.executor.now.val());
        self.out_ready.next = true;
        self.frame_ok.next = self.executor.frame_ok.val();
        self.frame_err.next = self.executor.frame_err.val();

        // Executor -> framer -> UART tx.
        self.framer.resp_pending.next = self.executor.resp_pending.val();
        self.framer.resp_kind.next = self.executor.resp_kind.val();
        self.executor.resp_sent.next = self.framer.resp_sent.val();
        self.framer.addr.next = self.executor.addr.val();
        self.framer.value.next = self.executor.value.val();
        self.framer.inj_done.next = self.executor.inj_done.val();
        self.framer.command.next = self.parser.command.val();
        self.framer.stamp.next = self.executor.now.val();
        self.executor.verdict_count.next = self.framer.verdict_count.val();
        self.executor.depart_count.next = self.framer.depart_count.val();
        self.tx_data.next = self.framer.tx_data.val();
        self.tx_valid.next = self.framer.tx_valid.val();
        self.framer.tx_ready.next = self.tx_ready.val();
    }
}
