// Formal harness of the block-RAM descriptor queue (hdl/src/desc_queue.rs), emitted small as
// `desc_queue_small` = DescQueue<8, 3, 4> (8 entries of 8 bits) by aqm-formal-emit.
//
// Assumptions (the caller's side of the contract): reset in the first cycle; no push into a full queue
// (the AQMs' limit check keeps the count below the capacity). Everything else is free.
//
// Properties (each under its own `define, one SBY task each, see desc_queue.sby):
//   COUNT     count = the shadow count (pushes - pops taken while head_valid), never above 8 (no
//             overflow), and head_valid only while count != 0 (no underflow)
//   HEAD      head_valid(c+1) = (count(c) - pop(c)) != 0: the contract's visibility rule, so the queue
//             never shows a head when empty (no underflow) and a non-empty queue shows one within 2 cycles
//   FIFO      a tracked entry (any one push, any data) reaches the head after exactly the entries pushed
//             before it have left, with its data intact: tags leave in enqueue order
//
// Mutations (`define MUT_*), used by scripts/prove --mutants to show each property can fail:
//   MUT_OVERFILL  the harness may push into a full queue (breaks COUNT: the count wraps past 8)
//   MUT_LATE_HEAD the harness sees head_valid one cycle late (breaks HEAD)
//   MUT_FLIP_DATA the harness sees head_data with bit 0 flipped while the queue holds 5 or more (breaks FIFO)
module desc_queue_props (
    input wire clock,
    input wire rst,
    input wire push,
    input wire [7:0] push_data,
    input wire pop,
    input wire track
);
`define QUEUE_MODULE desc_queue_small
  localparam integer LAG = 2;
`include "queue_check.svh"
endmodule
