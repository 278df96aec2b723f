//! The random generator: xorshift64 (13, 7, 17), one step per consumed word (see `aqm_golden::prng`).

use crate::konst::K;
use aqm_golden::prng::{XorShift64, DEFAULT_SEED};
use rust_hdl::prelude::*;

/// `REGW` = 0: `word` is one xorshift step of the state, three levels of XOR after its flip-flops.
/// `REGW` = 1: `word` is a register kept equal to that step (a take steps it from itself, a seed load
/// from the seed), so that the rolls compare flip-flops; about 64 flip-flops and 130 LUT4 more.
#[derive(LogicBlock, Default)]
pub struct Prng<const REGW: u64> {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: back to the default seed.
    pub rst: Signal<In, Bit>,
    /// Consume `word`: the state advances to it at the clock edge.
    pub take: Signal<In, Bit>,
    /// Load `seed` (non-zero; the register file rejects zero). Wins over `take`.
    pub seed_we: Signal<In, Bit>,
    pub seed: Signal<In, Bits<64>>,
    /// The next word, valid every cycle: one xorshift step of the state.
    pub word: Signal<Out, Bits<64>>,
    /// The current state (readable through the register file).
    pub state: Signal<Out, Bits<64>>,
    /// One step of the state, of `wr` and of `seed` (the last two for `REGW` = 1).
    of_st: XorShiftStep,
    of_wr: XorShiftStep,
    of_seed: XorShiftStep,
    st: DFF<Bits<64>>,
    wr: DFF<Bits<64>>,
    default_seed: K<64, DEFAULT_SEED>,
    default_word: K<64, { XorShift64::step(DEFAULT_SEED) }>,
    regw: K<1, REGW>,
}

impl<const REGW: u64> Logic for Prng<REGW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, st, wr);
        self.of_st.x.next = self.st.q.val();
        self.of_wr.x.next = self.wr.q.val();
        self.of_seed.x.next = self.seed.val();
        self.word.next = self.of_st.y.val();
        if self.regw.val().any() {
            self.word.next = self.wr.q.val();
        }
        self.state.next = self.st.q.val();
        if self.take.val() {
            self.st.d.next = self.word.val();
            self.wr.d.next = self.of_wr.y.val();
        }
        if self.seed_we.val() {
            self.st.d.next = self.seed.val();
            self.wr.d.next = self.of_seed.y.val();
        }
        if self.rst.val() {
            self.st.d.next = self.default_seed.val();
            self.wr.d.next = self.default_word.val();
        }
    }
}

/// One xorshift64 (13, 7, 17) step, `XorShift64::step`: three levels of XOR.
#[derive(LogicBlock, Default)]
pub struct XorShiftStep {
    pub x: Signal<In, Bits<64>>,
    pub y: Signal<Out, Bits<64>>,
    a: Signal<Local, Bits<64>>,
    b: Signal<Local, Bits<64>>,
}

impl Logic for XorShiftStep {
    #[hdl_gen]
    fn update(&mut self) {
        self.a.next = self.x.val() ^ (self.x.val() << 13);
        self.b.next = self.a.val() ^ (self.a.val() >> 7);
        self.y.next = self.b.val() ^ (self.b.val() << 17);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{clock_edge, settle};
    use aqm_golden::prng::XorShift64;

    fn steps_like_the_golden_generator<const REGW: u64>() {
        let mut p = Prng::<REGW>::default();
        p.connect_all();
        let mut g = XorShift64::default();
        p.rst.next = true;
        settle(&mut p);
        clock_edge(&mut p, |p| &mut p.clock);
        p.rst.next = false;
        for i in 0..2000u64 {
            let take = i % 3 != 0;
            let seed = i % 97 == 50 || i % 211 == 7;
            p.take.next = take;
            p.seed_we.next = seed;
            p.seed.next = (0x1234_5678_9abc_def0u64 ^ i).to_bits();
            settle(&mut p);
            assert_eq!(p.state.val().to_u64(), g.state(), "cycle {i}");
            assert_eq!(
                p.word.val().to_u64(),
                XorShift64::step(g.state()),
                "cycle {i}"
            );
            if seed {
                g = XorShift64::new(0x1234_5678_9abc_def0u64 ^ i).unwrap();
            } else if take {
                g.next_word();
            }
            clock_edge(&mut p, |p| &mut p.clock);
        }
    }

    #[test]
    fn steps_like_the_golden_generator_only_when_a_word_is_taken() {
        steps_like_the_golden_generator::<0>();
    }

    #[test]
    fn the_registered_word_steps_like_the_golden_generator() {
        steps_like_the_golden_generator::<1>();
    }
}
