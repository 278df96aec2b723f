//! Verilog emission: each core under its own module name (`pie_core`, `dualpi2_core`, their submodules
//! `pie_core$...`), so that several cores share one design; the board tops as `module top`; the port lists
//! for the Verilator binding; and a wrapper that instantiates several cores side by side.

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

/// An emitted design: its Verilog, the name of its top module and its ports.
pub struct Emitted {
    pub verilog: String,
    /// The top module's name; every other module of the design is named `<module>$<path>`.
    pub module: String,
    pub ports: Vec<Port>,
}

/// Emits any block as `module top`.
pub fn emit<B: Block>(uut: B) -> Emitted {
    emit_as(uut, "top")
}

/// Emits any block as `module <module>`, its submodules as `<module>$<path>`.
pub fn emit_as<B: Block>(mut uut: B, module: &str) -> Emitted {
    uut.connect_all();
    Emitted {
        verilog: rename_top(&generate_verilog(&uut), module),
        module: module.to_string(),
        ports: top_ports(&uut),
    }
}

/// rust-hdl names the top module `top` and every submodule `top$<path>`; renames them to `module` and
/// `module$<path>`. Only module names start with `top$` (signals of submodules are `<child>$<name>`, and
/// no block has a child named `top`), and `top` alone is the name only in `module top(`; a test checks
/// that the renamed design lints clean.
fn rename_top(verilog: &str, module: &str) -> String {
    if module == "top" {
        return verilog.to_string();
    }
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let mut out = String::with_capacity(verilog.len() + verilog.len() / 16);
    let mut rest = verilog;
    while let Some(k) = rest.find(|c: char| ident(c)) {
        out.push_str(&rest[..k]);
        rest = &rest[k..];
        let end = rest.find(|c: char| !ident(c)).unwrap_or(rest.len());
        let word = &rest[..end];
        match word.strip_prefix("top") {
            Some(tail) if tail.starts_with('$') => {
                out.push_str(module);
                out.push_str(tail);
            }
            Some("") if out.ends_with("module ") && rest[end..].starts_with('(') => {
                out.push_str(module)
            }
            _ => out.push_str(word),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// A design of several cores side by side, `module <module>`: one clock for all, every other port of
/// instance `name` as `<name>_<port>`. The instances' Verilog is included, each module once.
pub fn side_by_side(module: &str, instances: &[(&str, &Emitted)]) -> Emitted {
    let mut v = String::new();
    let mut seen: Vec<&str> = vec![];
    for (_, e) in instances {
        if !seen.contains(&e.module.as_str()) {
            seen.push(&e.module);
            v.push_str(&e.verilog);
            v.push('\n');
        }
    }
    let mut ports = vec![Port {
        name: "clock".to_string(),
        width: 1,
        output: false,
    }];
    for (name, e) in instances {
        ports.extend(e.ports.iter().filter(|p| p.name != "clock").map(|p| Port {
            name: format!("{name}_{}", p.name),
            ..p.clone()
        }));
    }
    let names: Vec<&str> = ports.iter().map(|p| p.name.as_str()).collect();
    v.push_str(&format!("module {module}({});\n", names.join(",")));
    for p in &ports {
        let dir = if p.output { "output" } else { "input" };
        let range = if p.width > 1 {
            format!("[{}:0] ", p.width - 1)
        } else {
            String::new()
        };
        v.push_str(&format!("    {dir} wire {range}{};\n", p.name));
    }
    for (name, e) in instances {
        let conns: Vec<String> = e
            .ports
            .iter()
            .map(|p| match p.name.as_str() {
                "clock" => ".clock(clock)".to_string(),
                n => format!(".{n}({name}_{n})"),
            })
            .collect();
        v.push_str(&format!("    {} {name}({});\n", e.module, conns.join(",")));
    }
    v.push_str("endmodule\n");
    Emitted {
        verilog: v,
        module: module.to_string(),
        ports,
    }
}

/// A core's design by name (`pie_core`, `dualpi2_core`: see [`crate::cores::HDL_CORES`]), for the
/// command line and the build scripts.
pub fn by_name(name: &str) -> Option<Emitted> {
    by_name_with(name, crate::head_queue::Heads::Registers)
}

/// [`by_name`] in the head form `heads`.
pub fn by_name_with(name: &str, heads: crate::head_queue::Heads) -> Option<Emitted> {
    crate::cores::HDL_CORES
        .iter()
        .find(|c| c.design() == name)
        .map(|c| (c.emit)(&c.design(), heads))
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
            assert_eq!(
                c.emitted().ports,
                cores[0].emitted().ports,
                "{}",
                c.design()
            );
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
        assert!(e.verilog.contains("module pie_core("));
        assert!(e.verilog.contains("module pie_core$ctrl("));
        assert!(!e.verilog.contains("top$"));
    }

    #[test]
    fn renaming_touches_module_names_only() {
        let v = "module top(a,b);\n  top$x x(.stop$q(a), .q(top_b));\nendmodule\nmodule top$x(q);\nendmodule\n";
        assert_eq!(
            rename_top(v, "pie_core"),
            "module pie_core(a,b);\n  pie_core$x x(.stop$q(a), .q(top_b));\nendmodule\nmodule pie_core$x(q);\nendmodule\n"
        );
    }
}
