//! Emits each core's Verilog with aqm-hdl, verilates it, and compiles the model, the Verilator runtime and
//! a small C shim (set/get a port by index, eval, VCD tracing) with the cc crate. `bindings.rs` in OUT_DIR
//! lists each design's ports for the Rust side.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    println!("cargo:rerun-if-changed=build.rs");
    let root = verilator_root();
    let mut bindings = String::new();
    for name in aqm_hdl::emit::designs() {
        let design = aqm_hdl::emit::by_name(&name).expect("known design");
        verilate(&name, design, &out, &root, &mut bindings);
    }
    for name in aqm_bsp::emit::sim_designs() {
        let design = aqm_bsp::emit::by_name(&name).expect("known design");
        verilate(&name, design, &out, &root, &mut bindings);
    }
    let _ = writeln!(
        bindings,
        "/// UART cycles per bit and ns per cycle of the simulated board top.\npub const BOARD_SIM_CPB: u64 = {};\npub const BOARD_SIM_NSPC: u64 = {};",
        aqm_bsp::emit::SIM_CPB,
        aqm_bsp::top::BOARD_NSPC
    );
    std::fs::write(out.join("bindings.rs"), bindings).expect("write bindings.rs");
}

/// VERILATOR_ROOT from the environment or from `verilator --getenv VERILATOR_ROOT`.
fn verilator_root() -> PathBuf {
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

fn ctype(width: usize) -> &'static str {
    match width {
        0..=8 => "CData",
        9..=16 => "SData",
        17..=32 => "IData",
        _ => "QData",
    }
}

fn verilate(
    name: &str,
    design: aqm_hdl::emit::Emitted,
    out: &Path,
    root: &Path,
    bindings: &mut String,
) {
    assert!(
        design.ports.iter().all(|p| p.width <= 64),
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
        .args(["--top-module", "top", "--prefix", &prefix])
        .arg("-Mdir")
        .arg(&obj)
        .arg(&vfile)
        .status()
        .expect("run verilator");
    assert!(status.success(), "verilator failed on {}", vfile.display());

    // The shim: ports by index.
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
    for (k, p) in design.ports.iter().enumerate().filter(|(_, p)| !p.output) {
        let _ = writeln!(
            shim,
            "    case {k}: t->{} = ({})v; break;",
            p.name,
            ctype(p.width)
        );
    }
    let _ = writeln!(shim, "    default: break;\n  }}\n}}");
    let _ = writeln!(shim, "uint64_t {name}_get(void* p, uint32_t port) {{\n  {prefix}* t = ((S_{name}*)p)->top;\n  switch (port) {{");
    for (k, p) in design.ports.iter().enumerate() {
        let _ = writeln!(shim, "    case {k}: return (uint64_t)t->{};", p.name);
    }
    let _ = writeln!(shim, "    default: return 0;\n  }}\n}}\n}}");
    let shim_path = dir.join("shim.cpp");
    std::fs::write(&shim_path, shim).expect("write shim");

    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        .opt_level(2)
        .warnings(false)
        .flag_if_supported("-Wno-unused-parameter")
        .flag_if_supported("-Wno-sign-compare")
        .include(root.join("include"))
        .include(root.join("include/vltstd"))
        .include(&obj)
        .file(root.join("include/verilated.cpp"))
        .file(root.join("include/verilated_threads.cpp"))
        .file(root.join("include/verilated_vcd_c.cpp"))
        .file(&shim_path);
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&obj)
        .expect("read obj dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
        .collect();
    sources.sort();
    for s in sources {
        build.file(s);
    }
    build.compile(&format!("aqm_verilated_{name}"));

    let _ = writeln!(
        bindings,
        "/// Ports of `{name}`: (name, width, output).\npub mod {name} {{"
    );
    let _ = writeln!(bindings, "    pub const PORTS: &[(&str, u32, bool)] = &[");
    for p in &design.ports {
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
