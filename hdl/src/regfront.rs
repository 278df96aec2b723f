//! The front of every core's register file: the bus, the write staging, the registers all cores have at
//! the same addresses (ID, STATUS, CONTROL and CAPACITY, `aqm_golden::hw::regs::common_addr`), the write
//! error (pulse and sticky bit) and the read data register.
//!
//! A core's own register block instantiates it, judges the staged write (`w_we`, `w_addr`, `w_data`, the
//! cycle after `reg_we`) into `ok` in that same cycle, and answers a read with `core_rdata` /
//! `core_mapped` combinationally in the `re` cycle. `rdata` and `rvalid` follow one cycle after `re`;
//! `err` pulses one cycle after a rejected write is judged or an unmapped address is
//! read. A write to STATUS or CONTROL is taken here whatever `ok` says.

use crate::konst::K;
use rust_hdl::prelude::*;

/// The register bus as the blocks inside a core see it: the core's `reg_*` ports, passed down with
/// `RegBus::link`.
#[derive(LogicInterface, Default)]
pub struct RegBus {
    pub addr: Signal<In, Bits<8>>,
    pub wdata: Signal<In, Bits<32>>,
    pub we: Signal<In, Bit>,
    pub re: Signal<In, Bit>,
    /// With `rvalid`, the cycle after `re`.
    pub rdata: Signal<Out, Bits<32>>,
    pub rvalid: Signal<Out, Bit>,
    /// Pulses the cycle after a rejected access.
    pub err: Signal<Out, Bit>,
}

/// `ID`: what the ID register reads; `CAPACITY`: what CAPACITY reads.
#[derive(LogicBlock, Default)]
pub struct RegFront<const ID: u64, const CAPACITY: u64> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub bus: RegBus,
    /// STATUS bit 1 (what is busy is the core's to say).
    pub busy: Signal<In, Bit>,
    // The staged write, for the core to judge.
    pub w_we: Signal<Out, Bit>,
    pub w_addr: Signal<Out, Bits<8>>,
    pub w_data: Signal<Out, Bits<32>>,
    /// The core accepts the staged write (read only while `w_we`).
    pub ok: Signal<In, Bit>,
    // The core's read mux, for `bus.addr` in a `bus.re` cycle.
    pub core_rdata: Signal<In, Bits<32>>,
    pub core_mapped: Signal<In, Bit>,
    // CONTROL's strobes.
    pub clear_counters: Signal<Out, Bit>,
    /// CONTROL.reset: the cycle after the write is judged.
    pub soft_reset: Signal<Out, Bit>,

    we: DFF<Bit>,
    addr: DFF<Bits<8>>,
    data: DFF<Bits<32>>,
    err_sticky: DFF<Bit>,
    rdata: DFF<Bits<32>>,
    rvalid: DFF<Bit>,
    err: DFF<Bit>,
    soft_rst: DFF<Bit>,
    accepted: Signal<Local, Bit>,
    mapped: Signal<Local, Bit>,
    id: K<32, ID>,
    capacity: K<32, CAPACITY>,
}

impl<const ID: u64, const CAPACITY: u64> Logic for RegFront<ID, CAPACITY> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, we, addr, data, err_sticky, rdata, rvalid, err, soft_rst);
        self.we.d.next = self.bus.we.val();
        self.addr.d.next = self.bus.addr.val();
        self.data.d.next = self.bus.wdata.val();
        self.w_we.next = self.we.q.val();
        self.w_addr.next = self.addr.q.val();
        self.w_data.next = self.data.q.val();

        self.clear_counters.next = false;
        self.soft_rst.d.next = false;
        self.err.d.next = false;
        self.accepted.next = self.ok.val();
        if self.we.q.val() {
            match self.addr.q.val().index() {
                1 => {
                    // STATUS: write 1 to clear write_error.
                    self.accepted.next = true;
                    if self.data.q.val().get_bit(0) {
                        self.err_sticky.d.next = false;
                    }
                }
                2 => {
                    // CONTROL
                    self.accepted.next = true;
                    self.soft_rst.d.next = self.data.q.val().get_bit(0);
                    self.clear_counters.next = self.data.q.val().get_bit(1);
                }
                _ => {}
            }
            if !self.accepted.val() {
                self.err.d.next = true;
                self.err_sticky.d.next = true;
            }
        }

        self.rvalid.d.next = self.bus.re.val();
        self.mapped.next = true;
        if self.bus.re.val() {
            match self.bus.addr.val().index() {
                0 => {
                    self.rdata.d.next = self.id.val();
                }
                1 => {
                    self.rdata.d.next = (bit_cast::<32, 1>(self.busy.val().into()) << 1)
                        | bit_cast::<32, 1>(self.err_sticky.q.val().into());
                }
                2 => {
                    self.rdata.d.next = 0.into();
                }
                3 => {
                    self.rdata.d.next = self.capacity.val();
                }
                _ => {
                    self.rdata.d.next = self.core_rdata.val();
                    self.mapped.next = self.core_mapped.val();
                }
            }
            if !self.mapped.val() {
                self.err.d.next = true;
            }
        }

        self.bus.rdata.next = self.rdata.q.val();
        self.bus.rvalid.next = self.rvalid.q.val();
        self.bus.err.next = self.err.q.val();
        self.soft_reset.next = self.soft_rst.q.val();

        if self.rst.val() {
            self.we.d.next = false;
            self.err_sticky.d.next = false;
            self.rdata.d.next = 0.into();
            self.rvalid.d.next = false;
            self.err.d.next = false;
            self.soft_rst.d.next = false;
            self.clear_counters.next = false;
        }
    }
}

/// `LO <= x <= HI` for a 32-bit `x` and constant bounds, as plain logic: no adder, so no carry chain
/// (Yosys turns a `<=` against a constant into one carry per bit; this is a chain of and/or terms that
/// ABC packs into a few LUTs, and a bound of the form 2^k - 1 becomes "the bits above k are zero").
/// The rust-hdl simulation compares the numbers.
#[derive(LogicBlock, Default)]
pub struct InRange<const LO: u64, const HI: u64> {
    pub x: Signal<In, Bits<32>>,
    pub ok: Signal<Out, Bit>,
}

impl<const LO: u64, const HI: u64> InRange<LO, HI> {
    const BOUNDS: () = assert!(LO <= HI && HI <= u32::MAX as u64);
}

/// `x[i:0] <= c[i:0]` (`le`) or `x[i:0] >= c[i:0]` (`!le`) as a Verilog expression of and/or terms of
/// bits `i` down to 0 of the signal `x` (no adder, so no carry chain), true for `i < 0`.
///
/// The terms form a balanced tree ([`cmp_tree`]), about log2(i) and-or levels deep. Written as a chain
/// from the top bit down, ABC kept it a chain of LUTs, one per bit or two: behind an adder, 8 LUT levels
/// for a 30-bit comparison on the PIE ingress's longest path.
fn const_cmp(x: &str, le: bool, c: u64, i: i32) -> String {
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

impl<const LO: u64, const HI: u64> Logic for InRange<LO, HI> {
    fn update(&mut self) {
        #[allow(clippy::let_unit_value)]
        let _ = Self::BOUNDS;
        let x = self.x.val().index() as u64;
        self.ok.next = x >= LO && x <= HI;
    }

    fn connect(&mut self) {
        self.ok.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "always @(*) ok = {} & {};\n",
            const_cmp("x", false, LO, 31),
            const_cmp("x", true, HI, 31)
        ))
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Yosys proves that `want` holds for every input of a comparator: `body` is its module body (inputs
    /// `lo`, `hi0`, `hi1` or `x`; output `ok`, or the split comparator's parts `hi_gt`, `hi_ge` and
    /// `lo_ge`).
    fn prove(name: &str, ports: &str, body: &str, want: &str) {
        let dir = std::env::temp_dir().join(format!("aqm_cmp_{}_{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("chk.v");
        let v = format!(
            "module chk({ports}, output eq);\n  reg ok, hi_gt, hi_ge, lo_ge;\n{body}\n  assign eq = {want};\nendmodule\n"
        );
        std::fs::write(&file, v).unwrap();
        let script = format!(
            "read_verilog {}; prep -top chk; sat -verify -prove eq 1",
            file.display()
        );
        if let Err(e) = crate::synth::yosys(&file, &script) {
            panic!("{name}: {want}: {e}");
        }
    }

    fn body(v: Verilog) -> String {
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

    macro_rules! in_range {
        ($(($lo:expr, $hi:expr)),*) => {$(
            prove(
                "in_range",
                "input [31:0] x",
                &body(InRange::<{ $lo }, { $hi }>::default().hdl()),
                &format!("ok == (x >= 32'd{} && x <= 32'd{})", { let l: u64 = $lo; l }, { let h: u64 = $hi; h }),
            );
        )*};
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

    /// The register files' range checks, at the bounds they use and at the edges of the word.
    #[test]
    fn the_range_checks_verilog_is_the_range_for_every_input() {
        use aqm_golden::dualpi2::params::range;
        in_range!(
            (range::TARGET_US.0 as u64, range::TARGET_US.1 as u64),
            (range::GAIN.0 as u64, range::GAIN.1 as u64),
            (range::MTU.0 as u64, range::MTU.1 as u64),
            (range::C_PROTECTION.0 as u64, range::C_PROTECTION.1 as u64),
            (range::MIN_QLEN_STEP.0 as u64, range::MIN_QLEN_STEP.1 as u64),
            (0, 0),
            (1, 1),
            (0x7FFF_FFFF, 0x8000_0000),
            (0x1234_5678, 0xFFFF_FFFE)
        );
    }
}
