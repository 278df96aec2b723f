//! The ports every core has and the wiring every core shares, declared once: both cores are the same
//! block to the outside (the emit test `every_core_has_the_same_ports` holds them to it, and the
//! Verilator bindings, the board tops and the formal harnesses rely on it). The meaning of each port,
//! cycle by cycle, is on the contract pages (hdl/PIE-CORE.md, hdl/DUALPI2-CORE.md).

/// `aqm_core! { #[derive(LogicBlock, Default)] pub struct Name<..> { own fields } }`: the struct with the
/// core ports first, then the core's own (private) fields.
macro_rules! aqm_core {
    (
        $(#[$m:meta])*
        pub struct $name:ident $(<$(const $g:ident: u64),+>)? {
            $($(#[$fm:meta])* $f:ident: $t:ty,)*
        }
    ) => {
        $(#[$m])*
        pub struct $name $(<$(const $g: u64),+>)? {
            pub clock: Signal<In, Clock>,
            /// Synchronous reset of the whole core, parameters included.
            pub rst: Signal<In, Bit>,
            /// ns, never decreasing.
            pub now: Signal<In, Bits<64>>,
            // Ingress descriptor stream.
            pub in_valid: Signal<In, Bit>,
            pub in_ready: Signal<Out, Bit>,
            /// Bytes.
            pub in_len: Signal<In, Bits<16>>,
            /// 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE.
            pub in_ecn: Signal<In, Bits<2>>,
            /// Opaque to the core.
            pub in_tag: Signal<In, Bits<16>>,
            // Verdict stream (no back-pressure: one per accepted descriptor).
            pub verdict_valid: Signal<Out, Bit>,
            pub verdict_tag: Signal<Out, Bits<16>>,
            /// 0 enqueued, 1 CE-marked and enqueued, 2 early drop, 3 tail drop (the codes a core uses:
            /// its `CoreKind`).
            pub verdict_code: Signal<Out, Bits<2>>,
            /// The queue it went to (DualPI2: 1 = L; PIE: always 0).
            pub verdict_queue: Signal<Out, Bit>,
            // Egress stream: every packet that leaves a queue.
            pub out_valid: Signal<Out, Bit>,
            pub out_ready: Signal<In, Bit>,
            pub out_len: Signal<Out, Bits<16>>,
            pub out_ecn: Signal<Out, Bits<2>>,
            pub out_tag: Signal<Out, Bits<16>>,
            /// ns.
            pub out_sojourn: Signal<Out, Bits<40>>,
            /// DualPI2: 1 = L; PIE: always 0.
            pub out_queue: Signal<Out, Bit>,
            /// Dropped by the AQM at dequeue (PIE: always 0, it drops at enqueue).
            pub out_drop: Signal<Out, Bit>,
            // Register bus.
            pub reg_addr: Signal<In, Bits<8>>,
            pub reg_wdata: Signal<In, Bits<32>>,
            pub reg_we: Signal<In, Bit>,
            pub reg_re: Signal<In, Bit>,
            pub reg_rdata: Signal<Out, Bits<32>>,
            pub reg_rvalid: Signal<Out, Bit>,
            pub reg_err: Signal<Out, Bit>,
            // Scheduling hints for simulators.
            pub idle: Signal<Out, Bit>,
            /// ns, low 40 bits.
            pub next_update: Signal<Out, Bits<40>>,
            /// ns, low 40 bits, while `link_busy`.
            pub link_free: Signal<Out, Bits<40>>,
            pub link_busy: Signal<Out, Bit>,

            $($(#[$fm])* $f: $t,)*
        }
    };
}
pub(crate) use aqm_core;

/// The core's `update`, with the wiring every core shares put in front of the core's own statements:
/// ```text
/// core_logic! {
///     impl Logic for Core {
///         #[hdl_gen]
///         fn update(&mut self) {
///             clock!(self, clock, <the core's other blocks>);
///             <the core's own statements>
///         }
///     }
/// }
/// ```
/// Every core has the blocks `regs`, `ctrl`, `ingress`, `egress` and `prng` (clocked here),
/// `resets` (a [`crate::reset::ResetFanout`]: bits 0-4 of its `rst_o` reset those five blocks, the
/// core's own blocks take the bits from 5) and a local `rst_i` (`rst` or the soft reset, for the
/// core's own logic), and wires them alike: the internal reset (`rst` or the registers' soft reset,
/// a copy per block), the descriptor and verdict streams through the ingress, the egress stream
/// through the egress, the register bus through the register file, the PRNG's seed from the
/// registers, a PROB write into the controller, and the scheduling hints. The core's own statements
/// wire the rest (`verdict_queue`, `out_queue` and `out_drop` among them). The attribute and `self`
/// are the caller's tokens: `#[hdl_gen]` writes a `connect` whose `self` must be the one the
/// statements use.
macro_rules! core_logic {
    (
        impl $(<$(const $g:ident: u64),+>)? Logic for $name:ident $(<$($g2:ident),+>)? {
            $pound:tt $attr:tt
            fn update(&mut $s:tt) {
                clock!($_self:tt, clock $(, $blk:ident)*);
                $($body:tt)*
            }
        }
    ) => {
        impl $(<$(const $g: u64),+>)? Logic for $name $(<$($g2),+>)? {
            $pound $attr
            fn update(&mut $s) {
                clock!($s, clock, resets, regs, ctrl, ingress, egress, prng $(, $blk)*);
                $s.rst_i.next = $s.rst.val() | $s.regs.soft_reset.val();
                $s.resets.rst.next = $s.rst.val();
                $s.resets.soft_next.next = $s.regs.soft_reset_next.val();
                $s.regs.rst.next = $s.resets.rst_o.val().get_bit(0);
                $s.ctrl.rst.next = $s.resets.rst_o.val().get_bit(1);
                $s.ingress.rst.next = $s.resets.rst_o.val().get_bit(2);
                $s.egress.rst.next = $s.resets.rst_o.val().get_bit(3);
                $s.prng.rst.next = $s.resets.rst_o.val().get_bit(4);
                $s.in_ready.next = $s.ingress.in_ready.val();
                $s.ingress.in_valid.next = $s.in_valid.val();
                $s.ingress.in_len.next = $s.in_len.val();
                $s.ingress.in_ecn.next = $s.in_ecn.val();
                $s.ingress.in_tag.next = $s.in_tag.val();
                $s.ingress.clear_counters.next = $s.regs.clear_counters.val();
                $s.verdict_valid.next = $s.ingress.verdict_valid.val();
                $s.verdict_tag.next = $s.ingress.verdict_tag.val();
                $s.verdict_code.next = $s.ingress.verdict_code.val();
                $s.egress.out_ready.next = $s.out_ready.val();
                $s.egress.clear_counters.next = $s.regs.clear_counters.val();
                $s.out_valid.next = $s.egress.out_valid.val();
                $s.out_len.next = $s.egress.out_len.val();
                $s.out_ecn.next = $s.egress.out_ecn.val();
                $s.out_tag.next = $s.egress.out_tag.val();
                $s.out_sojourn.next = $s.egress.out_sojourn.val();
                $s.prng.seed_we.next = $s.regs.seed_we.val();
                $s.prng.seed.next = $s.regs.seed.val();
                $s.ctrl.prob_we.next = $s.regs.prob_we.val();
                $s.ctrl.prob_wdata.next = $s.regs.prob_wdata.val();
                $s.regs.bus.addr.next = $s.reg_addr.val();
                $s.regs.bus.wdata.next = $s.reg_wdata.val();
                $s.regs.bus.we.next = $s.reg_we.val();
                $s.regs.bus.re.next = $s.reg_re.val();
                $s.regs.ctrl_busy.next = $s.ctrl.busy.val();
                $s.regs.prng_state.next = $s.prng.state.val();
                $s.regs.prob.next = $s.ctrl.prob.val();
                $s.reg_rdata.next = $s.regs.bus.rdata.val();
                $s.reg_rvalid.next = $s.regs.bus.rvalid.val();
                $s.reg_err.next = $s.regs.bus.err.val();
                $s.next_update.next = $s.ctrl.next_update.val();
                $s.link_free.next = $s.egress.link_free.val();
                $s.link_busy.next = $s.egress.link_busy.val();
                $($body)*
            }
        }
    };
}
pub(crate) use core_logic;
