//! The Verilated cores: the Verilog that aqm-hdl emits, verilated and compiled by this crate's build
//! script (see build.rs), behind a safe wrapper.
//!
//! [`Model`] is a design with its ports addressed by name; [`VerilatedCore`] drives the PIE or the DualPI2
//! core with the same port structs as the golden models (`aqm_golden::hw::CoreInputs` / `CoreOutputs`).

use aqm_golden::hw::{ClockedCore, CoreInputs, CoreKind, CoreOutputs};
use std::ffi::{c_void, CString};
use std::path::Path;

#[allow(dead_code)]
mod ffi {
    include!(concat!(env!("OUT_DIR"), "/bindings.rs"));
}

pub use ffi::{BOARD_SIM_CPB, BOARD_SIM_NSPC};

/// A verilated design's entry points.
struct Design {
    name: &'static str,
    ports: &'static [(&'static str, u32, bool)],
    new: unsafe extern "C" fn() -> *mut c_void,
    free: unsafe extern "C" fn(*mut c_void),
    eval: unsafe extern "C" fn(*mut c_void),
    set: unsafe extern "C" fn(*mut c_void, u32, u64),
    get: unsafe extern "C" fn(*mut c_void, u32) -> u64,
    trace_open: unsafe extern "C" fn(*mut c_void, *const std::ffi::c_char) -> i32,
    trace_dump: unsafe extern "C" fn(*mut c_void, u64),
    trace_close: unsafe extern "C" fn(*mut c_void),
}

/// The entry points of a design the build script verilated.
macro_rules! design {
    ($static:ident, $name:ident) => {
        static $static: Design = Design {
            name: stringify!($name),
            ports: ffi::$name::PORTS,
            new: ffi::$name::new,
            free: ffi::$name::free,
            eval: ffi::$name::eval,
            set: ffi::$name::set,
            get: ffi::$name::get,
            trace_open: ffi::$name::trace_open,
            trace_dump: ffi::$name::trace_dump,
            trace_close: ffi::$name::trace_close,
        };
    };
}

design!(PIE_CORE, pie_core);
design!(DUALPI2_CORE, dualpi2_core);
design!(BOARD_PIE_SIM, board_pie_sim);

/// The cores' designs (`<core>_core`), one per core of `aqm_golden::hw::CORES`.
static DESIGNS: &[&Design] = &[&PIE_CORE, &DUALPI2_CORE];
design!(BOARD_DUALPI2_SIM, board_dualpi2_sim);

/// A port of a model, resolved once by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortId(u32);

/// One instance of a verilated design.
pub struct Model {
    design: &'static Design,
    ptr: *mut c_void,
    clock: PortId,
    /// Half cycles so far, the VCD time unit.
    half_cycles: u64,
    tracing: bool,
}

// The instance is plain memory owned by this value; Verilator keeps no thread-local state for it.
unsafe impl Send for Model {}

impl Model {
    fn new(design: &'static Design) -> Model {
        // SAFETY: the constructor has no preconditions and returns an owned instance.
        let ptr = unsafe { (design.new)() };
        assert!(
            !ptr.is_null(),
            "{}: Verilator model allocation failed",
            design.name
        );
        let mut m = Model {
            design,
            ptr,
            clock: PortId(0),
            half_cycles: 0,
            tracing: false,
        };
        m.clock = m.port("clock").expect("every design has a clock");
        m
    }

    /// The port called `name`.
    pub fn port(&self, name: &str) -> Option<PortId> {
        self.design
            .ports
            .iter()
            .position(|p| p.0 == name)
            .map(|k| PortId(k as u32))
    }

    /// Drive an input (ignored for outputs).
    pub fn set(&mut self, port: PortId, v: u64) {
        // SAFETY: ptr is a live instance; unknown or output indices are ignored by the shim.
        unsafe { (self.design.set)(self.ptr, port.0, v) }
    }

    /// Read a port.
    pub fn get(&self, port: PortId) -> u64 {
        // SAFETY: ptr is a live instance; unknown indices read 0.
        unsafe { (self.design.get)(self.ptr, port.0) }
    }

    /// Propagate the inputs with the clock low; the outputs then show this cycle's values.
    pub fn settle(&mut self) {
        self.set(self.clock, 0);
        // SAFETY: ptr is a live instance.
        unsafe { (self.design.eval)(self.ptr) };
        self.dump();
    }

    /// The rising edge.
    pub fn rising_edge(&mut self) {
        self.set(self.clock, 1);
        // SAFETY: ptr is a live instance.
        unsafe { (self.design.eval)(self.ptr) };
        self.dump();
    }

    fn dump(&mut self) {
        if self.tracing {
            // SAFETY: ptr is a live instance with an open trace.
            unsafe { (self.design.trace_dump)(self.ptr, self.half_cycles * 5) };
        }
        self.half_cycles += 1;
    }

    /// Write a VCD of every signal from now on.
    pub fn trace_to(&mut self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let c = CString::new(path.to_string_lossy().as_bytes())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        // SAFETY: ptr is live and c outlives the call.
        let ok = unsafe { (self.design.trace_open)(self.ptr, c.as_ptr()) };
        if ok == 0 {
            return Err(std::io::Error::other(format!(
                "cannot open {}",
                path.display()
            )));
        }
        self.tracing = true;
        Ok(())
    }
}

impl Drop for Model {
    fn drop(&mut self) {
        // SAFETY: ptr was created by `new` and is freed once.
        unsafe {
            if self.tracing {
                (self.design.trace_close)(self.ptr);
            }
            (self.design.free)(self.ptr)
        }
    }
}

fn ids<const N: usize>(m: &Model, names: [&str; N]) -> [PortId; N] {
    names.map(|n| {
        m.port(n)
            .unwrap_or_else(|| panic!("{}: no port {n}", m.design.name))
    })
}

/// A Verilated AQM core (every core has the same ports), one clock cycle at a time: the RTL as a
/// [`ClockedCore`].
///
/// The event driver looks at a cycle's outputs before it decides to clock it, with the same inputs: the
/// design is settled once for both (two evaluations per cycle, the least a clocked model needs).
pub struct VerilatedCore {
    m: Model,
    inputs: [PortId; 11],
    outputs: [PortId; 19],
    /// The inputs the design is settled with now, and its outputs then.
    settled: Option<(CoreInputs, CoreOutputs)>,
}

impl VerilatedCore {
    /// The core of `kind`, all registers at zero as after power-on.
    pub fn new(kind: &dyn CoreKind) -> VerilatedCore {
        let design = format!("{}_core", kind.name());
        let d = DESIGNS
            .iter()
            .copied()
            .find(|d| d.name == design)
            .unwrap_or_else(|| panic!("no Verilated design {design}: the build script verilates every core of aqm_hdl::cores"));
        VerilatedCore::with(Model::new(d))
    }

    fn with(m: Model) -> VerilatedCore {
        let inputs = ids(
            &m,
            [
                "rst",
                "now",
                "in_valid",
                "in_len",
                "in_ecn",
                "in_tag",
                "out_ready",
                "reg_addr",
                "reg_wdata",
                "reg_we",
                "reg_re",
            ],
        );
        let outputs = ids(
            &m,
            [
                "in_ready",
                "verdict_valid",
                "verdict_tag",
                "verdict_code",
                "verdict_queue",
                "out_valid",
                "out_len",
                "out_ecn",
                "out_tag",
                "out_sojourn",
                "out_queue",
                "out_drop",
                "reg_rdata",
                "reg_rvalid",
                "reg_err",
                "idle",
                "next_update",
                "link_free",
                "link_busy",
            ],
        );
        VerilatedCore {
            m,
            inputs,
            outputs,
            settled: None,
        }
    }

    /// The underlying model (to trace it, for instance).
    pub fn model(&mut self) -> &mut Model {
        &mut self.m
    }

    /// Settles the design with these inputs and reads its outputs.
    fn settle(&mut self, i: &CoreInputs) -> CoreOutputs {
        let v = [
            i.rst as u64,
            i.now,
            i.in_valid as u64,
            i.in_len as u64,
            i.in_ecn as u64 & 3,
            i.in_tag as u64,
            i.out_ready as u64,
            i.reg_addr as u64,
            i.reg_wdata as u64,
            i.reg_we as u64,
            i.reg_re as u64,
        ];
        for (p, v) in self.inputs.iter().zip(v) {
            self.m.set(*p, v);
        }
        self.m.settle();
        let g = |k: usize| self.m.get(self.outputs[k]);
        CoreOutputs {
            in_ready: g(0) != 0,
            verdict_valid: g(1) != 0,
            verdict_tag: g(2) as u16,
            verdict_code: g(3) as u8,
            verdict_queue: g(4) != 0,
            out_valid: g(5) != 0,
            out_len: g(6) as u16,
            out_ecn: g(7) as u8,
            out_tag: g(8) as u16,
            out_sojourn: g(9),
            out_queue: g(10) != 0,
            out_drop: g(11) != 0,
            reg_rdata: g(12) as u32,
            reg_rvalid: g(13) != 0,
            reg_err: g(14) != 0,
            idle: g(15) != 0,
            next_update: g(16),
            link_free: g(17),
            link_busy: g(18) != 0,
        }
    }
}

impl ClockedCore for VerilatedCore {
    fn model_name(&self) -> &'static str {
        "verilator"
    }

    fn peek(&mut self, i: &CoreInputs) -> CoreOutputs {
        match self.settled {
            Some((si, o)) if si == *i => o,
            _ => {
                let o = self.settle(i);
                self.settled = Some((*i, o));
                o
            }
        }
    }

    fn step(&mut self, i: &CoreInputs) -> CoreOutputs {
        let o = self.peek(i);
        self.m.rising_edge();
        self.settled = None;
        o
    }
}

/// A Verilated board top (`board_pie_sim` or `board_dualpi2_sim`: the line card's logic around its core,
/// with the PLL bypassed and a 4-cycle UART bit), one clock cycle per [`step`](VerilatedBoard::step).
pub struct VerilatedBoard {
    m: Model,
    rst_n: PortId,
    usb_rx: PortId,
    usb_tx: PortId,
    leds: PortId,
}

impl VerilatedBoard {
    /// The PIE line card (`board_pie_sim`).
    pub fn pie() -> VerilatedBoard {
        VerilatedBoard::with(Model::new(&BOARD_PIE_SIM))
    }

    /// The DualPI2 line card (`board_dualpi2_sim`).
    pub fn dualpi2() -> VerilatedBoard {
        VerilatedBoard::with(Model::new(&BOARD_DUALPI2_SIM))
    }

    fn with(m: Model) -> VerilatedBoard {
        let [rst_n, usb_rx, usb_tx, leds] = ids(&m, ["rst_n", "usb_rx", "usb_tx", "leds"]);
        VerilatedBoard {
            m,
            rst_n,
            usb_rx,
            usb_tx,
            leds,
        }
    }

    pub fn model(&mut self) -> &mut Model {
        &mut self.m
    }

    /// One clock cycle: the reset button (active low) and the UART line into the FPGA; returns the UART
    /// line out of the FPGA and the LEDs during the cycle.
    pub fn step(&mut self, rst_n: bool, usb_rx: bool) -> (bool, u8) {
        self.m.set(self.rst_n, rst_n as u64);
        self.m.set(self.usb_rx, usb_rx as u64);
        self.m.settle();
        let out = (self.m.get(self.usb_tx) != 0, self.m.get(self.leds) as u8);
        self.m.rising_edge();
        out
    }
}
