//! The ports every core has, declared once: both cores are the same block to the outside (the emit test
//! `every_core_has_the_same_ports` holds them to it, and the Verilator bindings, the board tops and the
//! formal harnesses rely on it). The meaning of each port, cycle by cycle, is on the contract pages
//! (hdl/PIE-CORE.md, hdl/DUALPI2-CORE.md).

/// `aqm_core! { #[derive(LogicBlock, Default)] pub struct Name<..> { own fields } }`: the struct with the
/// core ports first, then the core's own (private) fields.
macro_rules! aqm_core {
    (
        $(#[$m:meta])*
        pub struct $name:ident $(<const $g:ident: u64>)? {
            $($(#[$fm:meta])* $f:ident: $t:ty,)*
        }
    ) => {
        $(#[$m])*
        pub struct $name $(<const $g: u64>)? {
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
