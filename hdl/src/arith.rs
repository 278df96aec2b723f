//! Arithmetic shaped for the iCE40's carry chains.

use rust_hdl::prelude::*;

/// `a + b - c` modulo 2^W as one carry chain: a 3:2 carry-save compression of `a`, `b` and `~c` (a LUT
/// per bit: their sum bits and their carries), then one adder with the `+ 1` of the subtraction as its
/// low carry bit. Two adders in a row would put two carry chains on the path.
#[derive(LogicBlock, Default)]
pub struct AddSub<const W: usize> {
    pub a: Signal<In, Bits<W>>,
    pub b: Signal<In, Bits<W>>,
    pub c: Signal<In, Bits<W>>,
    pub sum: Signal<Out, Bits<W>>,
    /// `~c` in a signal of its own width (inside a wider expression Verilog would widen before `~`).
    nc: Signal<Local, Bits<W>>,
}

impl<const W: usize> Logic for AddSub<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.nc.next = !self.c.val();
        self.sum.next = (self.a.val() ^ self.b.val() ^ self.nc.val())
            + ((((self.a.val() & self.b.val())
                | (self.a.val() & self.nc.val())
                | (self.b.val() & self.nc.val()))
                << 1)
                | 1_u64.to_bits());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::settle;
    use aqm_golden::prng::XorShift64;

    #[test]
    fn add_sub_is_a_plus_b_minus_c_modulo_the_width() {
        let mut m = AddSub::<22>::default();
        m.connect_all();
        let mut rng = XorShift64::new(3).unwrap();
        let mask = (1u64 << 22) - 1;
        let mut cases = vec![
            (0, 0, 0),
            (mask, mask, mask),
            (0, 0, 1),
            (mask, 1, 0),
            (5, 0, 7),
        ];
        cases.extend((0..2000).map(|_| {
            let w = rng.next_word();
            (w & mask, (w >> 22) & mask, (w >> 44) & mask)
        }));
        for (a, b, c) in cases {
            m.a.next = a.to_bits();
            m.b.next = b.to_bits();
            m.c.next = c.to_bits();
            settle(&mut m);
            assert_eq!(
                m.sum.val().to_u64(),
                a.wrapping_add(b).wrapping_sub(c) & mask,
                "{a} + {b} - {c}"
            );
        }
    }

    #[test]
    fn is_synthesizable() {
        let mut m = AddSub::<22>::default();
        m.connect_all();
        yosys_validate("add_sub", &generate_verilog(&m)).unwrap();
    }
}
