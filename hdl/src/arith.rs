//! Arithmetic shaped for the iCE40's carry chains: three words to two without a chain ([`Csa`]),
//! `a + b - c` as one chain ([`AddSub`]), an age's comparison with a threshold in shorter chains side by
//! side ([`AgeAbove`]), an accumulator plus a small product as one adder tree ([`WeightedAdd`]) or the
//! product in carry-save form ([`WeightedCs`]), and
//! comparisons with a constant as balanced and/or trees instead of a chain (the register files' range
//! checks, `regfront::InRange`), and the sign of a sum in carry-select chains with its operand made a
//! stage ahead ([`SignSplit`], [`SubConst`]).

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
/// from the top bit down, ABC kept it a chain of LUTs, one per bit or two. (Behind an adder even the
/// tree came out six to nine LUTs deep with ABC9, which sees the chain's late bits: the PIE ingress
/// compares its sums as [`SignSplit`]s instead.)
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

/// `a + d >= 0` for a 60-bit unsigned `a` and a 61-bit two's complement `d` whose sum is within
/// +-2^60 (bit 60 of the sum modulo 2^61 is its sign), in carry-select form: the low 30 bits' chain
/// and the high 31 bits' two chains (`a - !d` is `a + d + 1`, one chain) side by side, the low carry
/// choosing. A comparison `a + x >= C` is this with `d` = x - C from a stage ahead ([`SubConst`]): a
/// carry chain and a select after `a`'s flip-flops, where a tree of LUTs on the sum's bits waits for
/// the sum's chain first (the PIE ingress's look-ahead).
#[derive(LogicBlock, Default)]
pub struct SignSplit {
    pub a: Signal<In, Bits<60>>,
    pub d: Signal<In, Bits<61>>,
    pub nonneg: Signal<Out, Bit>,
    lo: Signal<Local, Bits<31>>,
    ah: Signal<Local, Bits<31>>,
    h0: Signal<Local, Bits<31>>,
    h1: Signal<Local, Bits<31>>,
}

impl Logic for SignSplit {
    #[hdl_gen]
    fn update(&mut self) {
        self.lo.next = bit_cast::<31, 30>(self.a.val().get_bits::<30>(0))
            + bit_cast::<31, 30>(self.d.val().get_bits::<30>(0));
        self.ah.next = bit_cast::<31, 30>(self.a.val().get_bits::<30>(30));
        self.h0.next = self.ah.val() + self.d.val().get_bits::<31>(30);
        self.h1.next = self.ah.val() - !self.d.val().get_bits::<31>(30);
        self.nonneg.next = !self.h0.val().get_bit(30);
        if self.lo.val().get_bit(30) {
            self.nonneg.next = !self.h1.val().get_bit(30);
        }
    }
}

/// `x - C` modulo 2^61 for a 56-bit `x` and a constant `C` < 2^60, as `x + (2^61 - C)` in carry-select
/// form: the low 30 bits' chain and the high 31 bits' two chains (with the constant's high part, and
/// with it plus one) side by side, the low carry choosing.
#[derive(LogicBlock, Default)]
pub struct SubConst<const C: u64> {
    pub x: Signal<In, Bits<56>>,
    pub d: Signal<Out, Bits<61>>,
}

impl<const C: u64> SubConst<C> {
    const WIDTH: () = assert!(C < 1 << 60);
    const K: u64 = (1u64 << 61) - C;
}

impl<const C: u64> Logic for SubConst<C> {
    fn update(&mut self) {
        #[allow(clippy::let_unit_value)]
        let _ = Self::WIDTH;
        let x = self.x.val().to_u64();
        self.d.next = (x.wrapping_sub(C) & ((1 << 61) - 1)).to_bits();
    }

    fn connect(&mut self) {
        self.d.connect();
    }

    fn hdl(&self) -> Verilog {
        let k = Self::K;
        let (kh, kl) = (k >> 30, k & ((1 << 30) - 1));
        Verilog::Custom(format!(
            "wire [30:0] lo = {{1'b0, x[29:0]}} + 31'd{kl};\n\
             wire [30:0] xh = {{5'd0, x[55:30]}};\n\
             wire [30:0] h0 = xh + 31'd{kh};\n\
             wire [30:0] h1 = xh + 31'd{kh1};\n\
             always @(*) d = {{lo[30] ? h1 : h0, lo[29:0]}};\n",
            kh1 = (kh + 1) & 0x7FFF_FFFF,
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

/// `w x len` (`w` 7 bits, `len` 16 bits) in carry-save form, `s + k` modulo 2^24, with no carry
/// chain: the seven shifted partial products through four levels of [`Csa`] (7 words to 5, 4, 3,
/// 2). A register pair holding it feeds an accumulator's add as one more carry-save level and one
/// chain (DualPI2's fast-form WRR credit: the heads' weighted lengths, made a cycle ahead).
#[derive(LogicBlock, Default)]
pub struct WeightedCs {
    pub w: Signal<In, Bits<7>>,
    pub len: Signal<In, Bits<16>>,
    pub s: Signal<Out, Bits<24>>,
    pub k: Signal<Out, Bits<24>>,
    len24: Signal<Local, Bits<24>>,
    pp0: Signal<Local, Bits<24>>,
    pp1: Signal<Local, Bits<24>>,
    pp2: Signal<Local, Bits<24>>,
    pp3: Signal<Local, Bits<24>>,
    pp4: Signal<Local, Bits<24>>,
    pp5: Signal<Local, Bits<24>>,
    pp6: Signal<Local, Bits<24>>,
    c1: Csa<24>,
    c2: Csa<24>,
    c3: Csa<24>,
    c4: Csa<24>,
    c5: Csa<24>,
}

impl Logic for WeightedCs {
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
        // 7 -> 5: (pp0 pp1 pp2), (pp3 pp4 pp5), pp6.
        self.c1.a.next = self.pp0.val();
        self.c1.b.next = self.pp1.val();
        self.c1.c.next = self.pp2.val();
        self.c2.a.next = self.pp3.val();
        self.c2.b.next = self.pp4.val();
        self.c2.c.next = self.pp5.val();
        // 5 -> 4: (s1 2k1 s2), 2k2, pp6.
        self.c3.a.next = self.c1.s.val();
        self.c3.b.next = self.c1.k.val() << 1;
        self.c3.c.next = self.c2.s.val();
        // 4 -> 3: (s3 2k3 2k2), pp6.
        self.c4.a.next = self.c3.s.val();
        self.c4.b.next = self.c3.k.val() << 1;
        self.c4.c.next = self.c2.k.val() << 1;
        // 3 -> 2: (s4 2k4 pp6).
        self.c5.a.next = self.c4.s.val();
        self.c5.b.next = self.c4.k.val() << 1;
        self.c5.c.next = self.pp6.val();
        self.s.next = self.c5.s.val();
        self.k.next = self.c5.k.val() << 1;
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

    #[test]
    fn weighted_cs_is_w_times_len_in_two_words() {
        let mut m = WeightedCs::default();
        m.connect_all();
        let edges = [0u64, 1, 2, 0x7fff, 0x8000, 0xfffe, 0xffff];
        let mut cases: Vec<(u64, u64)> = (0..128u64)
            .flat_map(|w| edges.iter().map(move |&len| (w, len)))
            .collect();
        let mut rng = XorShift64::new(13).unwrap();
        cases.extend((0..20_000).map(|_| {
            let r = rng.next_word();
            ((r >> 24) & 0x7f, (r >> 31) & 0xffff)
        }));
        for (w, len) in cases {
            m.w.next = w.to_bits();
            m.len.next = len.to_bits();
            settle(&mut m);
            assert_eq!(
                (m.s.val().to_u64() + m.k.val().to_u64()) & 0xff_ffff,
                w * len,
                "{w} x {len}"
            );
        }
        yosys_validate("weighted_cs", &generate_verilog(&m)).unwrap();
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
    fn sign_split_is_the_sign_of_the_sum_for_every_input() {
        let mut m = SignSplit::default();
        m.connect_all();
        let v = format!(
            "{}\nmodule chk(input [59:0] a, input [60:0] d, output eq);\n\
             wire nonneg;\n\
             top u(.a(a), .d(d), .nonneg(nonneg));\n\
             wire [60:0] r = {{1'd0, a}} + d;\n\
             assign eq = nonneg == !r[60];\nendmodule\n",
            generate_verilog(&m)
        );
        if let Err(e) = prove_chk("sign_split", &v) {
            panic!("SignSplit: {e}");
        }
        // And the simulation model, around zero and at the carry between the parts.
        let mut rng = XorShift64::new(11).unwrap();
        for k in 0..20_000u64 {
            let a = rng.next_word() & ((1 << 60) - 1);
            let near = (a as i64).wrapping_neg().wrapping_add((k % 5) as i64 - 2);
            let d = match k % 3 {
                0 => rng.next_word() & ((1 << 61) - 1),
                1 => (near as u64) & ((1 << 61) - 1),
                _ => ((near as u64) ^ (rng.next_word() & ((1 << 30) - 1))) & ((1 << 61) - 1),
            };
            m.a.next = a.to_bits();
            m.d.next = d.to_bits();
            settle(&mut m);
            let r = (a + d) & ((1 << 61) - 1);
            assert_eq!(m.nonneg.val(), r >> 60 == 0, "a {a} d {d}");
        }
    }

    macro_rules! sub_const {
        ($($c:expr),*) => {$({
            let c: u64 = $c;
            let v = format!(
                "module chk(input [55:0] x, output eq);\n  reg [60:0] d;\n{}\n  \
                 wire [60:0] want = {{5'd0, x}} - 61'd{c};\n  assign eq = d == want;\nendmodule\n",
                body(SubConst::<{ $c }>::default().hdl())
            );
            if let Err(e) = prove_chk("sub_const", &v) {
                panic!("SubConst<{c}>: {e}");
            }
            let mut m = SubConst::<{ $c }>::default();
            m.connect_all();
            for x in [0u64, 1, (1 << 30) - 1, 1 << 30, (1 << 56) - 1, 0x00AB_CDEF_0123_4567] {
                m.x.next = x.to_bits();
                settle(&mut m);
                assert_eq!(m.d.val().to_u64(), x.wrapping_sub(c) & ((1 << 61) - 1), "x {x}");
            }
        })*};
    }

    #[test]
    fn sub_const_is_x_minus_c_for_every_input() {
        use aqm_golden::pie::consts::{ACCU_HIGH, ACCU_LOW};
        sub_const!(
            ACCU_LOW,
            ACCU_HIGH,
            0,
            1,
            (1 << 30) - 1,
            1 << 30,
            (1 << 60) - 1
        );
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
}
