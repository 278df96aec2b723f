//! Verilog emission: the cores as `module top`, and their port lists for the Verilator binding.

use rust_hdl::core::atom::{Atom, AtomKind};
use rust_hdl::core::probe::Probe;
use rust_hdl::prelude::*;

/// A port of the top module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    pub name: String,
    pub width: usize,
    pub output: bool,
}

/// Collects the atoms of the top scope only.
struct TopPorts {
    depth: usize,
    ports: Vec<Port>,
}

impl Probe for TopPorts {
    fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth += 1;
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        if self.depth != 1 {
            return;
        }
        let output = match signal.kind() {
            AtomKind::InputParameter => false,
            AtomKind::OutputParameter => true,
            _ => return,
        };
        self.ports.push(Port {
            name: name.to_string(),
            width: signal.bits(),
            output,
        });
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth -= 1;
    }
}

/// The ports of a connected block's top module, in declaration order.
pub fn top_ports<B: Block>(uut: &B) -> Vec<Port> {
    let mut p = TopPorts {
        depth: 0,
        ports: vec![],
    };
    uut.accept("top", &mut p);
    p.ports
}

/// An emitted design: its Verilog (`module top`) and ports.
pub struct Emitted {
    pub verilog: String,
    pub ports: Vec<Port>,
}

/// Emits any block as `module top`.
pub fn emit<B: Block>(mut uut: B) -> Emitted {
    uut.connect_all();
    Emitted {
        verilog: generate_verilog(&uut),
        ports: top_ports(&uut),
    }
}

/// A core's design by name (`pie_core`, `dualpi2_core`: see [`crate::cores::HDL_CORES`]), for the
/// command line and the build scripts.
pub fn by_name(name: &str) -> Option<Emitted> {
    crate::cores::HDL_CORES
        .iter()
        .find(|c| c.design() == name)
        .map(|c| (c.emit)())
}

/// The names of every design this crate emits.
pub fn designs() -> Vec<String> {
    crate::cores::HDL_CORES.iter().map(|c| c.design()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_core_has_the_same_ports() {
        let cores = crate::cores::HDL_CORES;
        for c in &cores[1..] {
            assert_eq!((c.emit)().ports, (cores[0].emit)().ports, "{}", c.design());
        }
    }

    #[test]
    fn pie_core_ports_are_the_documented_interface() {
        let e = by_name("pie_core").unwrap();
        let names: Vec<&str> = e.ports.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names[0], "clock");
        for p in [
            "now",
            "in_valid",
            "in_ready",
            "verdict_code",
            "out_sojourn",
            "reg_err",
            "idle",
        ] {
            assert!(names.contains(&p), "{p} missing from {names:?}");
        }
        let now = e.ports.iter().find(|p| p.name == "now").unwrap();
        assert_eq!((now.width, now.output), (64, false));
        assert!(e.verilog.contains("module top("));
    }
}
