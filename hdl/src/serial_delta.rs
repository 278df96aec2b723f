//! The datapath both PI controllers share: delta = a (q - t) + b (q - o) mod 2^64, bit-serially, least
//! significant bit first, one bit per clock.
//!
//! ```text
//! stage 0   d1 = q - t and d2 = q - o: two serial subtractors (a borrow each)
//! stage 1   a d1 and b d2: two carry-save serial x parallel multipliers; cell k adds its sum bit, its
//!           carry bit and the partial product bit, the sum moves down one place (bit 0 leaves), the
//!           carry stays
//! stage 2   delta = a d1 + b d2: a serial adder of the two bits that leave
//! ```
//! Bit i of q, t and o goes in at step i of a pass; bit i of delta is at `delta` in step i + 2. The
//! stages advance while `run` is high; `clear` (the step before a pass) puts every carry and both
//! multipliers at 0, and wins over `run`. `G`: the gains' width; `S = G - 1`.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct SerialDelta<const G: usize, const S: usize> {
    pub clock: Signal<In, Clock>,
    pub run: Signal<In, Bit>,
    pub clear: Signal<In, Bit>,
    /// This step's bits of q, t and o.
    pub q: Signal<In, Bit>,
    pub t: Signal<In, Bit>,
    pub o: Signal<In, Bit>,
    /// The gains, held through the pass.
    pub a: Signal<In, Bits<G>>,
    pub b: Signal<In, Bits<G>>,
    /// Bit i of delta, in step i + 2.
    pub delta: Signal<Out, Bit>,
    // Stage 0: the operand bits d1, d2 and their borrows.
    x1: DFF<Bit>,
    x2: DFF<Bit>,
    br1: DFF<Bit>,
    br2: DFF<Bit>,
    // Stage 1: the multipliers' sum and carry bits, each of weight 2^k of the current step.
    sa: DFF<Bits<S>>,
    ca: DFF<Bits<G>>,
    sb: DFF<Bits<S>>,
    cb: DFF<Bits<G>>,
    // Stage 2: delta's bit and its adder's carry.
    dl: DFF<Bit>,
    cab: DFF<Bit>,
    sa_x: Signal<Local, Bits<G>>,
    sb_x: Signal<Local, Bits<G>>,
    pp_a: Signal<Local, Bits<G>>,
    pp_b: Signal<Local, Bits<G>>,
    sum_a: Signal<Local, Bits<G>>,
    sum_b: Signal<Local, Bits<G>>,
    out_a: Signal<Local, Bit>,
    out_b: Signal<Local, Bit>,
}

impl<const G: usize, const S: usize> Logic for SerialDelta<G, S> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, x1, x2, br1, br2, sa, ca, sb, cb, dl, cab);
        self.sa_x.next = bit_cast::<G, S>(self.sa.q.val());
        self.sb_x.next = bit_cast::<G, S>(self.sb.q.val());
        self.pp_a.next = 0.into();
        if self.x1.q.val() {
            self.pp_a.next = self.a.val();
        }
        self.pp_b.next = 0.into();
        if self.x2.q.val() {
            self.pp_b.next = self.b.val();
        }
        self.sum_a.next = self.sa_x.val() ^ self.ca.q.val() ^ self.pp_a.val();
        self.sum_b.next = self.sb_x.val() ^ self.cb.q.val() ^ self.pp_b.val();
        self.out_a.next = self.sum_a.val().get_bit(0);
        self.out_b.next = self.sum_b.val().get_bit(0);
        if self.run.val() {
            self.x1.d.next = self.q.val() ^ self.t.val() ^ self.br1.q.val();
            self.br1.d.next = (!self.q.val() & self.t.val())
                | (!(self.q.val() ^ self.t.val()) & self.br1.q.val());
            self.x2.d.next = self.q.val() ^ self.o.val() ^ self.br2.q.val();
            self.br2.d.next = (!self.q.val() & self.o.val())
                | (!(self.q.val() ^ self.o.val()) & self.br2.q.val());
            self.sa.d.next = self.sum_a.val().get_bits::<S>(1);
            self.ca.d.next = (self.sa_x.val() & self.ca.q.val())
                | (self.sa_x.val() & self.pp_a.val())
                | (self.ca.q.val() & self.pp_a.val());
            self.sb.d.next = self.sum_b.val().get_bits::<S>(1);
            self.cb.d.next = (self.sb_x.val() & self.cb.q.val())
                | (self.sb_x.val() & self.pp_b.val())
                | (self.cb.q.val() & self.pp_b.val());
            self.dl.d.next = self.out_a.val() ^ self.out_b.val() ^ self.cab.q.val();
            self.cab.d.next = (self.out_a.val() & self.out_b.val())
                | (self.out_a.val() & self.cab.q.val())
                | (self.out_b.val() & self.cab.q.val());
        }
        if self.clear.val() {
            self.x1.d.next = false;
            self.x2.d.next = false;
            self.br1.d.next = false;
            self.br2.d.next = false;
            self.sa.d.next = 0.into();
            self.ca.d.next = 0.into();
            self.sb.d.next = 0.into();
            self.cb.d.next = 0.into();
            self.dl.d.next = false;
            self.cab.d.next = false;
        }
        self.delta.next = self.dl.q.val();
    }
}
