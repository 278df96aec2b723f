// Formal harness of the lag-3 descriptor queue (hdl/src/head_queue.rs) in either head form, emitted
// small as `head_queue_small` = HeadQueue<8, 3, 4, HR> (8 entries of 8 bits) by aqm-formal-emit:
// build/prove/verilog/head_queue_reg_small.v (the head in a register, HEAD_REG) and
// head_queue_ram_small.v (the head at the block RAM's output, HEAD_RAM). One harness, one contract.
//
// Assumptions (the caller's side of the contract): reset in the first cycle; no push while the queue
// holds 8 (the AQMs' limit checks keep the count at most 2^A). Everything else is free.
//
// Properties (each under its own `define, one SBY task each):
//   COUNT     count = the shadow count (pushes - pops taken while head_valid), never above 8, and
//             head_valid only while count != 0 (no underflow)
//   HEAD      head_valid(c+1) = (count(c) - pop(c) - push(c-1)) != 0: the contract's visibility rule
//             with a lag of 3 (golden::hw::queue), so a non-empty queue shows its oldest entry
//             pushed before the previous cycle, and never shows one it does not hold
//   FIFO      a tracked entry (any one push, any data) reaches the head after exactly the entries pushed
//             before it have left, with its data intact
//   COVER     a full queue with a head (no job: the descriptor queue's covers it)
//
// Mutations (`define MUT_*), used by scripts/prove --mutants (the checks are desc_queue_props.sv's,
// queue_check.svh):
//   MUT_OVERFILL  the harness may push into a queue holding 8 (breaks COUNT)
//   MUT_LATE_HEAD the harness sees head_valid one cycle late (breaks HEAD)
//   MUT_FLIP_DATA the harness sees head_data with bit 0 flipped while the queue holds 5 or more (breaks FIFO)
module head_queue_props (
    input wire clock,
    input wire rst,
    input wire push,
    input wire [7:0] push_data,
    input wire pop,
    input wire track
);
`define QUEUE_MODULE head_queue_small
  localparam integer LAG = 3;
`include "queue_check.svh"
endmodule
