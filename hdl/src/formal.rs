//! The shared blocks emitted small for the formal proofs (`scripts/prove`, hdl/formal/): the descriptor
//! queue with 8 entries instead of 512 or 1024 (the same `DescQueue` source, other generics), so that
//! k-induction and deep bounded checks over its pointers, count and every stored word stay cheap, and
//! the random generator on its own. The cores themselves are proved as `aqm-emit` writes them.

use crate::desc_queue::DescQueue;
use crate::emit::{emit_as, Emitted};
use crate::prng::Prng;

/// Entry width of the small queue: wide enough for a tracked tag.
pub const SMALL_QUEUE_WIDTH: usize = 8;
/// Address bits of the small queue: 2^3 = 8 entries.
pub const SMALL_QUEUE_ADDR_BITS: usize = 3;

/// The descriptor queue with 8 entries of 8 bits (`DescQueue<8, 3, 4>`: a count of 4 bits, as the
/// cores' queues have one bit more than their address), as `module desc_queue_small`.
pub fn small_queue() -> Emitted {
    emit_as(
        DescQueue::<SMALL_QUEUE_WIDTH, SMALL_QUEUE_ADDR_BITS, { SMALL_QUEUE_ADDR_BITS + 1 }>::default(),
        "desc_queue_small",
    )
}

/// The random generator, as `module prng_block`.
pub fn prng() -> Emitted {
    emit_as(Prng::default(), "prng_block")
}

/// Every design the formal harnesses need besides the cores: (file stem, design).
pub fn designs() -> Vec<(&'static str, Emitted)> {
    vec![("desc_queue_small", small_queue()), ("prng_block", prng())]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_designs_have_their_module_names_and_a_small_ram() {
        let q = small_queue();
        assert!(q.verilog.contains("module desc_queue_small("));
        assert!(q.verilog.contains("reg[7:0] mem[7:0];"));
        let count = q.ports.iter().find(|p| p.name == "count").unwrap();
        assert_eq!(count.width, 4);
        assert!(prng().verilog.contains("module prng_block("));
    }
}
