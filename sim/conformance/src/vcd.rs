//! A small VCD writer for port-level traces: one scope per model, one variable per port.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

/// A named group of signals with their widths.
pub struct Scope {
    pub name: String,
    pub signals: Vec<(&'static str, u32)>,
}

/// Writes `samples[cycle][scope][signal]` as a VCD file, one time unit per clock cycle starting at
/// `first_cycle`.
pub fn write(
    path: &Path,
    scopes: &[Scope],
    first_cycle: u64,
    samples: &[Vec<Vec<u64>>],
) -> io::Result<()> {
    let mut s = String::new();
    let _ = writeln!(s, "$timescale 1ns $end");
    let mut ids = vec![];
    let mut n = 0usize;
    for scope in scopes {
        let _ = writeln!(s, "$scope module {} $end", scope.name);
        let mut scope_ids = vec![];
        for (name, width) in &scope.signals {
            let id = ident(n);
            n += 1;
            let _ = writeln!(s, "$var wire {width} {id} {name} $end");
            scope_ids.push((id, *width));
        }
        let _ = writeln!(s, "$upscope $end");
        ids.push(scope_ids);
    }
    let _ = writeln!(s, "$enddefinitions $end");
    let mut last: Vec<Vec<Option<u64>>> = scopes
        .iter()
        .map(|sc| vec![None; sc.signals.len()])
        .collect();
    for (k, sample) in samples.iter().enumerate() {
        let _ = writeln!(s, "#{}", (first_cycle + k as u64) * 10);
        for (si, scope_vals) in sample.iter().enumerate() {
            for (vi, &v) in scope_vals.iter().enumerate() {
                if last[si][vi] == Some(v) {
                    continue;
                }
                last[si][vi] = Some(v);
                let (id, width) = &ids[si][vi];
                if *width == 1 {
                    let _ = writeln!(s, "{}{id}", v & 1);
                } else {
                    let _ = writeln!(s, "b{v:b} {id}");
                }
            }
        }
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, s)
}

fn ident(mut n: usize) -> String {
    let mut s = String::new();
    loop {
        s.push((b'!' + (n % 94) as u8) as char);
        n /= 94;
        if n == 0 {
            return s;
        }
    }
}
