//! Arithmetic shaped for the iCE40's carry chains: three words to two without a chain ([`Csa`]),
//! `a + b - c` as one chain ([`AddSub`]), an age's comparison with a threshold in shorter chains side by
//! side ([`AgeAbove`]), an accumulator plus a small product as one adder tree ([`WeightedAdd`]), and
//! comparisons with a constant as balanced and/or trees instead of a chain ([`AtLeast`],
//! [`AtLeastSplit`]; the register files' range checks, `regfront::InRange`, use the same trees).

use rust_hdl::prelude::*;

/// A 3:2 carry-save compressor: `a + b + c = s + 2 k`, with `s` their bitwise sum and
/// `k` their bitwise majority (not shifted; the user shifts it into the width it needs). A LUT per bit
/// for each word and no carry chain, so a sum of three words costs one adder's chain.
#[derive(LogicBlock, Default)]
pub struct Csa<const W: usize> {
    pub a: Signal<In, Bits<W>>,
    pub b: Signal<In, Bits<W>>,
    pub c: Signal<In, Bits<W>>,
    pub s: Signal<Out, Bits<W>>,
    pub k: Signal<Out, Bits<W>>,
}

impl<const W: usize> Logic for Csa<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.s.next = self.a.val() ^ self.b.val() ^ self.c.val();
        self.k.next = (self.a.val() & self.b.val())
            | (self.a.val() & self.c.val())
            | (self.b.val() & self.c.val());
    }
}

/// `a + b - c` modulo 2^W as one carry chain: a [`Csa`] of `a`, `b` and `~c`, then one adder with the
/// `+ 1` of the subtraction as its low carry bit. Two adders in a row would put two carry chains on the
/// path.
#[derive(LogicBlock, Default)]
pub struct AddSub<const W: usize> {
    pub a: Signal<In, Bits<W>>,
    pub b: Signal<In, Bits<W>>,
    pub c: Signal<In, Bits<W>>,
    pub sum: Signal<Out, Bits<W>>,
    csa: Csa<W>,
}

impl<const W: usize> Logic for AddSub<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.csa.a.next = self.a.val();
        self.csa.b.next = self.b.val();
        // `~c` into a port of its own width (inside a wider expression Verilog would widen before `~`).
        self.csa.c.next = !self.c.val();
        self.sum.next = self.csa.s.val() + ((self.csa.k.val() << 1) | 1_u64.to_bits());
    }
}

/// `x[i:0] <= c[i:0]` (`le`) or `x[i:0] >= c[i:0]` (`!le`) as a Verilog expression of and/or terms of
/// bits `i` down to 0 of the signal `x` (no adder, so no carry chain), true for `i < 0`.
///
/// The terms form a balanced tree ([`cmp_tree`]), about log2(i) and-or levels deep. Written as a chain
/// from the top bit down, ABC kept it a chain of LUTs, one per bit or two: behind an adder, 8 LUT levels
/// for a 30-bit comparison on the PIE ingress's longest path.
pub(crate) fn const_cmp(x: &str, le: bool, c: u64, i: i32) -> String {
    if i < 0 {
        return "1'b1".into();
    }
    let (ge, gt, _) = cmp_tree(x, c, i as u32, 0);
    if le { not(gt) } else { ge }.verilog()
}

/// A term of a comparison tree: a constant (folded away as the tree is built) or a Verilog expression.
#[derive(Clone)]
enum Term {
    K(bool),
    V(String),
}

impl Term {
    fn verilog(self) -> String {
        match self {
            Term::K(b) => if b { "1'b1" } else { "1'b0" }.into(),
            Term::V(s) => s,
        }
    }
}

fn and(a: Term, b: Term) -> Term {
    match (a, b) {
        (Term::K(false), _) | (_, Term::K(false)) => Term::K(false),
        (Term::K(true), t) | (t, Term::K(true)) => t,
        (Term::V(a), Term::V(b)) => Term::V(format!("({a} & {b})")),
    }
}

fn or(a: Term, b: Term) -> Term {
    match (a, b) {
        (Term::K(true), _) | (_, Term::K(true)) => Term::K(true),
        (Term::K(false), t) | (t, Term::K(false)) => t,
        (Term::V(a), Term::V(b)) => Term::V(format!("({a} | {b})")),
    }
}

fn not(t: Term) -> Term {
    match t {
        Term::K(b) => Term::K(!b),
        Term::V(s) => Term::V(format!("~{s}")),
    }
}

/// `x[hi:lo]` against `c[hi:lo]`: (at least, above, equal). The high half decides unless it equals
/// `c`'s, and then the low half does.
fn cmp_tree(x: &str, c: u64, hi: u32, lo: u32) -> (Term, Term, Term) {
    if hi == lo {
        let b = Term::V(format!("{x}[{hi}]"));
        return if (c >> hi) & 1 == 1 {
            (b.clone(), Term::K(false), b)
        } else {
            (Term::K(true), b.clone(), not(b))
        };
    }
    let mid = lo + (hi - lo).div_ceil(2);
    let (_, gt_h, eq_h) = cmp_tree(x, c, hi, mid);
    let (ge_l, gt_l, eq_l) = cmp_tree(x, c, mid - 1, lo);
    (
        or(gt_h.clone(), and(eq_h.clone(), ge_l)),
        or(gt_h, and(eq_h.clone(), gt_l)),
        and(eq_h, eq_l),
    )
}

/// `x >= C` for a `W`-bit `x` (at most 63 bits) and a constant `C`, as plain logic like [`InRange`]: no
/// carry chain, so on the iCE40 no logic cell that holds only a carry (a comparison in a carry chain takes
/// one cell per bit whose LUT nothing else can use).
#[derive(LogicBlock, Default)]
pub struct AtLeast<const W: usize, const C: u64> {
    pub x: Signal<In, Bits<W>>,
    pub ok: Signal<Out, Bit>,
}

impl<const W: usize, const C: u64> AtLeast<W, C> {
    const WIDTH: () = assert!(W < 64);
}

/// `x >= c` for the `w`-bit signal `x` as a Verilog expression: false when `c` needs more bits.
fn at_least(x: &str, c: u64, w: u32) -> String {
    if c >> w != 0 {
        "1'b0".into()
    } else {
        const_cmp(x, false, c, w as i32 - 1)
    }
}

impl<const W: usize, const C: u64> Logic for AtLeast<W, C> {
    fn update(&mut self) {
        #[allow(clippy::let_unit_value)]
        let _ = Self::WIDTH;
        self.ok.next = self.x.val().to_u64() >= C;
    }

    fn connect(&mut self) {
        self.ok.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "always @(*) ok = {};\n",
            at_least("x", C, W as u32)
        ))
    }
}

/// `{hi, lo} >= C` for a 60-bit sum in carry-select form: `lo` the low half's adder (bit 30 its carry),
/// `hi0` and `hi1` the high half without and with that carry. The comparison is made on both candidates
/// before the carry chooses, so it does not wait for the choice.
///
/// It is given in parts, for a pipeline that registers them and finishes the comparison in the next
/// stage with one LUT, `hi_gt | (hi_ge & lo_ge)`: `hi_gt` / `hi_ge` the high half (chosen by the carry)
/// above / at least `C`'s, and `lo_ge` the low half at least `C`'s.
#[derive(LogicBlock, Default)]
pub struct AtLeastSplit<const C: u64> {
    pub lo: Signal<In, Bits<31>>,
    pub hi0: Signal<In, Bits<30>>,
    pub hi1: Signal<In, Bits<30>>,
    pub hi_gt: Signal<Out, Bit>,
    pub hi_ge: Signal<Out, Bit>,
    pub lo_ge: Signal<Out, Bit>,
}

impl<const C: u64> AtLeastSplit<C> {
    const WIDTH: () = assert!(C < 1 << 60);
}

impl<const C: u64> Logic for AtLeastSplit<C> {
    fn update(&mut self) {
        #[allow(clippy::let_unit_value)]
        let _ = Self::WIDTH;
        let lo = self.lo.val().to_u64();
        let hi = if lo >> 30 == 1 {
            self.hi1.val()
        } else {
            self.hi0.val()
        }
        .to_u64();
        let lo = lo & ((1 << 30) - 1);
        self.hi_gt.next = hi > C >> 30;
        self.hi_ge.next = hi >= C >> 30;
        self.lo_ge.next = lo >= C & ((1 << 30) - 1);
    }

    fn connect(&mut self) {
        self.hi_gt.connect();
        self.hi_ge.connect();
        self.lo_ge.connect();
    }

    fn hdl(&self) -> Verilog {
        let (chi, clo) = (C >> 30, C & ((1 << 30) - 1));
        Verilog::Custom(format!(
            "wire h0_gt = {h0gt};\n\
             wire h0_ge = {h0ge};\n\
             wire h1_gt = {h1gt};\n\
             wire h1_ge = {h1ge};\n\
             always @(*) begin\n\
             \x20 lo_ge = {lo};\n\
             \x20 hi_gt = lo[30] ? h1_gt : h0_gt;\n\
             \x20 hi_ge = lo[30] ? h1_ge : h0_ge;\n\
             end\n",
            lo = at_least("lo", clo, 30),
            h0gt = at_least("hi0", chi + 1, 30),
            h0ge = at_least("hi0", chi, 30),
            h1gt = at_least("hi1", chi + 1, 30),
            h1ge = at_least("hi1", chi, 30),
        ))
    }
}

/// Whether a 40-bit age, `(now - ts) mod 2^40`, is above a 30-bit threshold `thr`, in chains of at most
/// 32 bits side by side (as one chain of `now - ts - thr - 1` in 42 bits beside the age's borrow in 41, it
/// was the DualPI2 card's longest path).
///
/// The age is above `thr` (< 2^30) iff its high ten bits are not zero or its low 30 bits are above `thr`:
/// - Its low 30 bits are `now_lo - ts_lo + 2^30 bw` (`_lo`: bits 0-29; `bw`: now_lo < ts_lo, a 30-bit
///   chain). With F = now_lo - ts_lo - thr - 1 in 32 bits (in [-2^31, 2^30); one chain after a [`Csa`]
///   of now_lo, ~ts_lo and ~thr), they are above `thr` iff F >= 0, or with a borrow iff F >= -2^30:
///   `!F[31] | (bw & F[30])`.
/// - Its high ten bits are `now_hi - ts_hi - bw` (`_hi`: bits 30-39): zero iff d = now_hi - ts_hi
///   (mod 2^10, a 10-bit chain) is `bw`.
///
/// F's chain is the last to settle, and one LUT follows it.
#[derive(LogicBlock, Default)]
pub struct AgeAbove {
    pub now: Signal<In, Bits<40>>,
    pub ts: Signal<In, Bits<40>>,
    pub thr: Signal<In, Bits<30>>,
    pub above: Signal<Out, Bit>,
    f: AddSub<32>,
    ts32: Signal<Local, Bits<32>>,
    b: Signal<Local, Bits<31>>,
    d: Signal<Local, Bits<10>>,
    /// The high ten bits of the age are not zero.
    hi_nz: Signal<Local, Bit>,
}

impl Logic for AgeAbove {
    #[hdl_gen]
    fn update(&mut self) {
        // F = now_lo + ~ts_lo - thr: now_lo - ts_lo - 1 - thr.
        self.ts32.next = bit_cast::<32, 30>(self.ts.val().get_bits::<30>(0));
        self.f.a.next = bit_cast::<32, 30>(self.now.val().get_bits::<30>(0));
        self.f.b.next = !self.ts32.val();
        self.f.c.next = bit_cast::<32, 30>(self.thr.val());
        self.b.next = bit_cast::<31, 30>(self.now.val().get_bits::<30>(0))
            - bit_cast::<31, 30>(self.ts.val().get_bits::<30>(0));
        self.d.next = self.now.val().get_bits::<10>(30) - self.ts.val().get_bits::<10>(30);
        self.hi_nz.next = self.d.val().get_bits::<9>(1).any()
            | (self.d.val().get_bit(0) != self.b.val().get_bit(30));
        self.above.next = !self.f.sum.val().get_bit(31)
            | (self.b.val().get_bit(30) & self.f.sum.val().get_bit(30))
            | self.hi_nz.val();
    }
}

/// `acc + w x len` modulo 2^24 (`w` 7 bits, `len` 16 bits) as one tree of adders: the seven shifted
/// partial products of w x len and `acc` are its eight leaves, so that `acc` goes through three
/// adders (not the product's three and then the add). The WRR credit's update (DualPI2's egress).
#[derive(LogicBlock, Default)]
pub struct WeightedAdd {
    pub acc: Signal<In, Bits<24>>,
    pub w: Signal<In, Bits<7>>,
    pub len: Signal<In, Bits<16>>,
    pub sum: Signal<Out, Bits<24>>,
    len24: Signal<Local, Bits<24>>,
    pp0: Signal<Local, Bits<24>>,
    pp1: Signal<Local, Bits<24>>,
    pp2: Signal<Local, Bits<24>>,
    pp3: Signal<Local, Bits<24>>,
    pp4: Signal<Local, Bits<24>>,
    pp5: Signal<Local, Bits<24>>,
    pp6: Signal<Local, Bits<24>>,
}

impl Logic for WeightedAdd {
    #[hdl_gen]
    fn update(&mut self) {
        self.len24.next = bit_cast::<24, 16>(self.len.val());
        self.pp0.next = 0.into();
        self.pp1.next = 0.into();
        self.pp2.next = 0.into();
        self.pp3.next = 0.into();
        self.pp4.next = 0.into();
        self.pp5.next = 0.into();
        self.pp6.next = 0.into();
        if self.w.val().get_bit(0) {
            self.pp0.next = self.len24.val();
        }
        if self.w.val().get_bit(1) {
            self.pp1.next = self.len24.val() << 1;
        }
        if self.w.val().get_bit(2) {
            self.pp2.next = self.len24.val() << 2;
        }
        if self.w.val().get_bit(3) {
            self.pp3.next = self.len24.val() << 3;
        }
        if self.w.val().get_bit(4) {
            self.pp4.next = self.len24.val() << 4;
        }
        if self.w.val().get_bit(5) {
            self.pp5.next = self.len24.val() << 5;
        }
        if self.w.val().get_bit(6) {
            self.pp6.next = self.len24.val() << 6;
        }
        self.sum.next = ((self.pp0.val() + self.pp1.val()) + (self.pp2.val() + self.pp3.val()))
            + ((self.pp4.val() + self.pp5.val()) + (self.pp6.val() + self.acc.val()));
    }
}

#[cfg(test)]
pub(crate) mod tests {
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
    fn csa_keeps_the_sum_of_three_words() {
        let mut m = Csa::<12>::default();
        m.connect_all();
        let mut rng = XorShift64::new(5).unwrap();
        let mask = (1u64 << 12) - 1;
        for _ in 0..2000 {
            let w = rng.next_word();
            let (a, b, c) = (w & mask, (w >> 12) & mask, (w >> 24) & mask);
            m.a.next = a.to_bits();
            m.b.next = b.to_bits();
            m.c.next = c.to_bits();
            settle(&mut m);
            assert_eq!(
                m.s.val().to_u64() + 2 * m.k.val().to_u64(),
                a + b + c,
                "{a} + {b} + {c}"
            );
        }
    }

    #[test]
    fn is_synthesizable() {
        let mut m = AddSub::<22>::default();
        m.connect_all();
        yosys_validate("add_sub", &generate_verilog(&m)).unwrap();
    }

    /// Yosys proves that output `eq` of module `chk` in `verilog` is 1 for every input (`chk` may
    /// instantiate other modules of `verilog`; the design is flattened first).
    fn prove_chk(name: &str, verilog: &str) -> Result<(), String> {
        let dir = std::env::temp_dir().join(format!("aqm_cmp_{}_{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("chk.v");
        std::fs::write(&file, verilog).unwrap();
        let script = format!(
            "read_verilog {}; prep -top chk; flatten; sat -verify -prove eq 1",
            file.display()
        );
        crate::synth::yosys(&file, &script).map(|_| ())
    }

    /// Yosys proves that `want` holds for every input of a comparator: `body` is its module body (inputs
    /// `lo`, `hi0`, `hi1` or `x`; output `ok`, or the split comparator's parts `hi_gt`, `hi_ge` and
    /// `lo_ge`).
    pub(crate) fn prove(name: &str, ports: &str, body: &str, want: &str) {
        let v = format!(
            "module chk({ports}, output eq);\n  reg ok, hi_gt, hi_ge, lo_ge;\n{body}\n  assign eq = {want};\nendmodule\n"
        );
        if let Err(e) = prove_chk(name, &v) {
            panic!("{name}: {want}: {e}");
        }
    }

    pub(crate) fn body(v: Verilog) -> String {
        match v {
            Verilog::Custom(s) => s,
            _ => unreachable!(),
        }
    }

    macro_rules! split {
        ($($c:expr),*) => {$({
            let c: u64 = $c;
            let (h, l) = (c >> 30, c & ((1 << 30) - 1));
            prove(
                "split",
                "input [30:0] lo, input [29:0] hi0, input [29:0] hi1",
                &body(AtLeastSplit::<{ $c }>::default().hdl()),
                &format!(
                    "(hi_gt | (hi_ge & lo_ge)) == ({{lo[30] ? hi1 : hi0, lo[29:0]}} >= 60'd{c}) \\
                     && hi_gt == ((lo[30] ? hi1 : hi0) > 30'd{h}) \\
                     && hi_ge == ((lo[30] ? hi1 : hi0) >= 30'd{h}) && lo_ge == (lo[29:0] >= 30'd{l})"
                ),
            );
            prove(
                "at_least",
                "input [59:0] x",
                &body(AtLeast::<60, { $c }>::default().hdl()),
                &format!("ok == (x >= 60'd{c})"),
            );
        })*};
    }

    #[test]
    fn weighted_add_is_acc_plus_w_times_len() {
        // Every weight against lengths and accumulators at their edges, then random words (yosys's
        // SAT does not finish on the product's equivalence in minutes).
        let mut m = WeightedAdd::default();
        m.connect_all();
        let edges = [0u64, 1, 2, 0x7fff, 0x8000, 0xfffe, 0xffff];
        let accs = [0u64, 1, 0x7f_ffff, 0x80_0000, 0xff_ffff, 0x12_3456];
        let mut cases = vec![];
        for w in 0..128u64 {
            for &len in &edges {
                for &acc in &accs {
                    cases.push((acc, w, len));
                }
            }
        }
        let mut rng = XorShift64::new(11).unwrap();
        cases.extend((0..20_000).map(|_| {
            let r = rng.next_word();
            (r & 0xff_ffff, (r >> 24) & 0x7f, (r >> 31) & 0xffff)
        }));
        for (acc, w, len) in cases {
            m.acc.next = acc.to_bits();
            m.w.next = w.to_bits();
            m.len.next = len.to_bits();
            settle(&mut m);
            assert_eq!(
                m.sum.val().to_u64(),
                (acc + w * len) & 0xff_ffff,
                "{acc} + {w} x {len}"
            );
        }
    }

    #[test]
    fn age_above_is_the_ages_comparison_for_every_input() {
        let mut m = AgeAbove::default();
        m.connect_all();
        let v = format!(
            "{}\nmodule chk(input [39:0] now, input [39:0] ts, input [29:0] thr, output eq);\n\
             wire above;\n\
             top u(.now(now), .ts(ts), .thr(thr), .above(above));\n\
             wire [39:0] want = now - ts;\n\
             assign eq = above == (want > {{10'd0, thr}});\nendmodule\n",
            generate_verilog(&m)
        );
        if let Err(e) = prove_chk("age_above", &v) {
            panic!("AgeAbove: {e}");
        }
        // And the simulation model, at the edges of the wrap and of the threshold.
        let mut rng = XorShift64::new(7).unwrap();
        for k in 0..20_000u64 {
            let thr = match k % 4 {
                0 => 0,
                1 => (1 << 30) - 1,
                _ => rng.next_word() & ((1 << 30) - 1),
            };
            let now = rng.next_word() & ((1 << 40) - 1);
            let ts = match k % 3 {
                0 => rng.next_word() & ((1 << 40) - 1),
                _ => now.wrapping_sub(thr).wrapping_add(k % 5).wrapping_sub(2) & ((1 << 40) - 1),
            };
            m.now.next = now.to_bits();
            m.ts.next = ts.to_bits();
            m.thr.next = thr.to_bits();
            settle(&mut m);
            let age = now.wrapping_sub(ts) & ((1 << 40) - 1);
            assert_eq!(m.above.val(), age > thr, "now {now} ts {ts} thr {thr}");
        }
    }

    #[test]
    fn the_comparators_verilog_is_the_comparison_for_every_input() {
        use aqm_golden::pie::consts::{ACCU_HIGH, ACCU_LOW};
        split!(
            ACCU_LOW,
            ACCU_HIGH,
            0,
            1,
            (1 << 30) - 1,
            1 << 30,
            (1 << 30) + 1,
            (1 << 60) - 1,
            0x0AAA_AAAA_5555_5555
        );
    }
}
