//! The build scripts of the Verilator bindings share this: [`verilator_root`] finds Verilator,
//! [`verilate`] turns one design's Verilog into a static library (the verilated model and a small C shim:
//! set/get a port by index, eval, VCD tracing) and the Rust declarations of its entry points, and
//! [`compile_runtime`] compiles Verilator's own runtime.
//!
//! The runtime must be linked once into a binary that holds several bindings: `aqm-verilated` (the cores)
//! compiles it and tells the crates that link against it where Verilator is (its `links` key gives them
//! `DEP_AQM_VERILATED_ROOT`); `aqm-board-verilated` (the board tops) compiles its models only.

use aqm_hdl::emit::{Emitted, Port};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// VERILATOR_ROOT from the environment or from `verilator --getenv VERILATOR_ROOT`.
///
/// Panics (a build script's way to fail) with the fix when Verilator is missing.
pub fn verilator_root() -> PathBuf {
    println!("cargo:rerun-if-env-changed=VERILATOR_ROOT");
    if let Ok(r) = std::env::var("VERILATOR_ROOT") {
        return PathBuf::from(r);
    }
    let out = Command::new("verilator")
        .args(["--getenv", "VERILATOR_ROOT"])
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run verilator ({e}): install it with scripts/setup (Debian package verilator)")
        });
    assert!(
        out.status.success(),
        "verilator --getenv VERILATOR_ROOT failed"
    );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

/// A C++ build with Verilator's include paths and the project's flags.
fn cpp_build(root: &Path) -> cc::Build {
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        .opt_level(2)
        .warnings(false)
        .flag_if_supported("-Wno-unused-parameter")
        .flag_if_supported("-Wno-sign-compare")
        .include(root.join("include"))
        .include(root.join("include/vltstd"));
    build
}

/// Compiles Verilator's runtime (`verilated.cpp`, threads, VCD writer) into the static library `lib`.
/// Call it in one crate only: every verilated model of the binary links against that copy.
pub fn compile_runtime(root: &Path, lib: &str) {
    cpp_build(root)
        .file(root.join("include/verilated.cpp"))
        .file(root.join("include/verilated_threads.cpp"))
        .file(root.join("include/verilated_vcd_c.cpp"))
        .compile(lib);
}

fn ctype(width: usize) -> &'static str {
    match width {
        0..=8 => "CData",
        9..=16 => "SData",
        17..=32 => "IData",
        _ => "QData",
    }
}

/// Verilates an emitted design (its top module) as `name` under `out/<name>`, compiles the model and its
/// shim into the static library `<lib_prefix>_<name>` (without Verilator's runtime: see
/// [`compile_runtime`]), and appends to `bindings` a Rust module `name` with its `PORTS` and its entry
/// points (`new`, `free`, `eval`, `set`, `get`, `trace_open`, `trace_dump`, `trace_close`).
pub fn verilate(
    name: &str,
    design: &Emitted,
    out: &Path,
    root: &Path,
    lib_prefix: &str,
    bindings: &mut String,
) {
    let ports = &design.ports;
    assert!(
        ports.iter().all(|p| p.width <= 64),
        "{name}: ports wider than 64 bits"
    );
    let dir = out.join(name);
    let obj = dir.join("obj");
    let _ = std::fs::remove_dir_all(&obj);
    std::fs::create_dir_all(&obj).expect("create obj dir");
    let vfile = dir.join(format!("{name}.v"));
    std::fs::write(&vfile, &design.verilog).expect("write verilog");
    let prefix = format!("V{name}");
    let status = Command::new("verilator")
        .args([
            "--cc",
            "--trace",
            "--no-timing",
            "-O3",
            "--x-assign",
            "0",
            "--x-initial",
            "0",
        ])
        .args([
            "-Wno-WIDTH",
            "-Wno-UNOPTFLAT",
            "-Wno-fatal",
            "-Wno-lint",
            "-Wno-style",
        ])
        .args(["--top-module", &design.module, "--prefix", &prefix])
        .arg("-Mdir")
        .arg(&obj)
        .arg(&vfile)
        .status()
        .expect("run verilator");
    assert!(status.success(), "verilator failed on {}", vfile.display());

    let shim_path = dir.join("shim.cpp");
    std::fs::write(&shim_path, shim(name, &prefix, ports)).expect("write shim");

    let mut build = cpp_build(root);
    build.include(&obj).file(&shim_path);
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&obj)
        .expect("read obj dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
        .collect();
    sources.sort();
    for s in sources {
        build.file(s);
    }
    build.compile(&format!("{lib_prefix}_{name}"));

    rust_bindings(name, ports, bindings);
}

/// The C shim of a design: its ports by index.
fn shim(name: &str, prefix: &str, ports: &[Port]) -> String {
    let mut shim = String::new();
    let _ = writeln!(
        shim,
        "#include \"{prefix}.h\"\n#include \"verilated.h\"\n#include \"verilated_vcd_c.h\"\n#include <cstdint>\n\
         struct S_{name} {{ VerilatedContext* ctx; {prefix}* top; VerilatedVcdC* tfp; }};\nextern \"C\" {{\n\
         void* {name}_new() {{ S_{name}* s = new S_{name}; s->ctx = new VerilatedContext; s->ctx->traceEverOn(true);\n\
           s->top = new {prefix}{{s->ctx}}; s->tfp = nullptr; return s; }}\n\
         void {name}_free(void* p) {{ S_{name}* s = (S_{name}*)p; if (s->tfp) {{ s->tfp->close(); delete s->tfp; }}\n\
           s->top->final(); delete s->top; delete s->ctx; delete s; }}\n\
         void {name}_eval(void* p) {{ ((S_{name}*)p)->top->eval(); }}\n\
         int {name}_trace_open(void* p, const char* path) {{ S_{name}* s = (S_{name}*)p; if (s->tfp) return 1;\n\
           s->tfp = new VerilatedVcdC; s->top->trace(s->tfp, 99); s->tfp->open(path); return s->tfp->isOpen() ? 1 : 0; }}\n\
         void {name}_trace_dump(void* p, uint64_t t) {{ S_{name}* s = (S_{name}*)p; if (s->tfp) s->tfp->dump(t); }}\n\
         void {name}_trace_close(void* p) {{ S_{name}* s = (S_{name}*)p; if (s->tfp) {{ s->tfp->close(); delete s->tfp; s->tfp = nullptr; }} }}"
    );
    let _ = writeln!(shim, "void {name}_set(void* p, uint32_t port, uint64_t v) {{\n  {prefix}* t = ((S_{name}*)p)->top;\n  switch (port) {{");
    for (k, p) in ports.iter().enumerate().filter(|(_, p)| !p.output) {
        let _ = writeln!(
            shim,
            "    case {k}: t->{} = ({})v; break;",
            p.name,
            ctype(p.width)
        );
    }
    let _ = writeln!(shim, "    default: break;\n  }}\n}}");
    let _ = writeln!(shim, "uint64_t {name}_get(void* p, uint32_t port) {{\n  {prefix}* t = ((S_{name}*)p)->top;\n  switch (port) {{");
    for (k, p) in ports.iter().enumerate() {
        let _ = writeln!(shim, "    case {k}: return (uint64_t)t->{};", p.name);
    }
    let _ = writeln!(shim, "    default: return 0;\n  }}\n}}\n}}");
    shim
}

/// The Rust side of a design: `pub mod <name> { PORTS, extern "C" { ... } }`.
fn rust_bindings(name: &str, ports: &[Port], bindings: &mut String) {
    let _ = writeln!(
        bindings,
        "/// Ports of `{name}`: (name, width, output).\npub mod {name} {{"
    );
    let _ = writeln!(bindings, "    pub const PORTS: &[(&str, u32, bool)] = &[");
    for p in ports {
        let _ = writeln!(
            bindings,
            "        ({:?}, {}, {}),",
            p.name, p.width, p.output
        );
    }
    let _ = writeln!(bindings, "    ];");
    let _ = writeln!(bindings, "    extern \"C\" {{");
    for (f, sig) in [
        ("new", "() -> *mut core::ffi::c_void"),
        ("free", "(p: *mut core::ffi::c_void)"),
        ("eval", "(p: *mut core::ffi::c_void)"),
        ("set", "(p: *mut core::ffi::c_void, port: u32, v: u64)"),
        ("get", "(p: *mut core::ffi::c_void, port: u32) -> u64"),
        (
            "trace_open",
            "(p: *mut core::ffi::c_void, path: *const core::ffi::c_char) -> i32",
        ),
        ("trace_dump", "(p: *mut core::ffi::c_void, t: u64)"),
        ("trace_close", "(p: *mut core::ffi::c_void)"),
    ] {
        let _ = writeln!(
            bindings,
            "        #[link_name = \"{name}_{f}\"]\n        pub fn {f}{sig};"
        );
    }
    let _ = writeln!(bindings, "    }}\n}}");
}
