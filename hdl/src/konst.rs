//! A constant whose value is a type parameter, so that blocks holding constants can `#[derive(Default)]`.
//!
//! rust-hdl's `Constant` has no `Default` (its value must be given at construction). `K<N, V>` carries
//! the value in its type and becomes a Verilog `localparam` exactly like a `Constant` does, because it
//! presents itself to rust-hdl's probes as the `Constant` it wraps. Use it with the golden model's named
//! constants, e.g. `K<64, { PROB_10PCT }>`, so the RTL and the model cannot drift apart.

use rust_hdl::core::ast::Verilog;
use rust_hdl::prelude::*;

pub struct K<const N: usize, const V: u64>(Constant<Bits<N>>);

impl<const N: usize, const V: u64> K<N, V> {
    pub fn val(&self) -> Bits<N> {
        self.0.val()
    }
}

impl<const N: usize, const V: u64> Default for K<N, V> {
    fn default() -> Self {
        K(Constant::new(V.to_bits()))
    }
}

impl<const N: usize, const V: u64> Logic for K<N, V> {
    fn update(&mut self) {}
    fn connect(&mut self) {}
    fn hdl(&self) -> Verilog {
        Verilog::Empty
    }
}

impl<const N: usize, const V: u64> Block for K<N, V> {
    fn connect_all(&mut self) {}
    fn update_all(&mut self) {}
    fn has_changed(&self) -> bool {
        false
    }
    fn accept(&self, name: &str, probe: &mut dyn Probe) {
        self.0.accept(name, probe);
    }
}
