//! The Verilated cores: the Verilog that aqm-hdl emits, verilated and compiled by this crate's build
//! script (see build.rs), behind a safe wrapper.
//!
//! [`Model`] is a design with its ports addressed by name; [`VerilatedCore`] drives the PIE or the DualPI2
//! core with the same port structs as the golden models (`aqm_golden::hw::CoreInputs` / `CoreOutputs`).
//! [`Design`], [`verilated_design!`] and [`Model`] serve the other bindings too (the board tops', in
//! aqm-board-verilated), whose models link against the Verilator runtime this crate compiles.

use aqm_golden::hw::{ClockedCore, CoreInputs, CoreKind, CoreOutputs};
use std::ffi::{c_void, CString};
use std::path::Path;

#[allow(dead_code)]
mod ffi {
    include!(concat!(env!("OUT_DIR"), "/bindings.rs"));
}

/// A verilated design's entry points: the functions of its C shim (see aqm-verilator-build).
pub struct Design {
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

/// The entry points of a shim, in the order of `Design`'s fields.
pub type ShimFns = (
    unsafe extern "C" fn() -> *mut c_void,
    unsafe extern "C" fn(*mut c_void),
    unsafe extern "C" fn(*mut c_void),
    unsafe extern "C" fn(*mut c_void, u32, u64),
    unsafe extern "C" fn(*mut c_void, u32) -> u64,
    unsafe extern "C" fn(*mut c_void, *const std::ffi::c_char) -> i32,
    unsafe extern "C" fn(*mut c_void, u64),
    unsafe extern "C" fn(*mut c_void),
);

impl Design {
    /// A design from its ports and its shim's functions.
    ///
    /// # Safety
    /// `fns` must be the functions that aqm-verilator-build's shim of this design exports (`<name>_new`,
    /// `_free`, `_eval`, `_set`, `_get`, `_trace_open`, `_trace_dump`, `_trace_close`), and `ports` its
    /// port list: [`Model`] calls them on that understanding. Use [`verilated_design!`].
    pub const unsafe fn new(
        name: &'static str,
        ports: &'static [(&'static str, u32, bool)],
        fns: ShimFns,
    ) -> Design {
        let (new, free, eval, set, get, trace_open, trace_dump, trace_close) = fns;
        Design {
            name,
            ports,
            new,
            free,
            eval,
            set,
            get,
            trace_open,
            trace_dump,
            trace_close,
        }
    }

    /// The design's name.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// `verilated_design!(STATIC, ffi_module, name)`: a `static STATIC: Design` of the design `name` whose
/// bindings (written by aqm-verilator-build into OUT_DIR) are in `ffi_module::name`.
#[macro_export]
macro_rules! verilated_design {
    ($static:ident, $ffi:ident, $name:ident) => {
        // SAFETY: the functions and ports are those aqm-verilator-build generated for this design.
        static $static: $crate::Design = unsafe {
            $crate::Design::new(
                stringify!($name),
                $ffi::$name::PORTS,
                (
                    $ffi::$name::new,
                    $ffi::$name::free,
                    $ffi::$name::eval,
                    $ffi::$name::set,
                    $ffi::$name::get,
                    $ffi::$name::trace_open,
                    $ffi::$name::trace_dump,
                    $ffi::$name::trace_close,
                ),
            )
        };
    };
}

verilated_design!(PIE_CORE, ffi, pie_core);
verilated_design!(DUALPI2_CORE, ffi, dualpi2_core);

/// The cores' designs (`<core>_core`), one per core of `aqm_golden::hw::CORES`.
static DESIGNS: &[&Design] = &[&PIE_CORE, &DUALPI2_CORE];

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
    /// A fresh instance of `design`, all registers at zero as after power-on.
    pub fn new(design: &'static Design) -> Model {
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

impl Model {
    /// The ports called `names`; panics naming the design and the port when one is missing (a mismatch
    /// between a wrapper and the design it was built for).
    pub fn ports<const N: usize>(&self, names: [&str; N]) -> [PortId; N] {
        names.map(|n| {
            self.port(n)
                .unwrap_or_else(|| panic!("{}: no port {n}", self.design.name))
        })
    }
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
        let inputs = m.ports(CoreInputs::PORTS.map(|(name, _)| name));
        let outputs = m.ports(CoreOutputs::PORTS.map(|(name, _)| name));
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
        let v = i.values();
        for (p, v) in self.inputs.iter().zip(v) {
            self.m.set(*p, v);
        }
        self.m.settle();
        CoreOutputs::from_values(self.outputs.map(|p| self.m.get(p)))
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
