// Formal harness of the lag-4 descriptor queue (hdl/src/head_queue.rs, LookQueue: DualPI2's) in either
// head form, emitted small as `look_queue_small` = LookQueue<8, 3, 4, HR> (8 entries of 8 bits) by
// aqm-formal-emit: build/prove/verilog/look_queue_reg_small.v (the head and the entry after it in
// registers, HEAD_REG) and look_queue_ram_small.v (the head at the block RAM's output, HEAD_RAM).
//
// Assumptions, COUNT, HEAD (with a lag of 4: an entry is shown from the fourth cycle after its push),
// FIFO, and the mutations: as head_queue_props.sv (queue_check.svh). One property more:
//   NEXT      when `advance` is high, the next cycle's head is this cycle's `next_data` (what a
//             consumer made from it a cycle ahead describes the head); in the RAM form `advance`
//             stays low
// Mutation: MUT_NEXT_EARLY the harness compares the head with `next_data` two cycles back (breaks NEXT).
module look_queue_props (
    input wire clock,
    input wire rst,
    input wire push,
    input wire [7:0] push_data,
    input wire pop,
    input wire track
);
`define QUEUE_MODULE look_queue_small
`define QUEUE_LOOK
  localparam integer LAG = 4;
`include "queue_check.svh"

`ifdef NEXT
  wire [7:0] nd = next_data;
  wire adv = advance;
  reg [7:0] p_nd = 8'd0, pp_nd = 8'd0;
  reg p_adv = 1'b0;
  always @(posedge clock) begin
    p_nd <= nd;
    pp_nd <= p_nd;
    p_adv <= adv && !rst;
  end
  always @(*) if (!init && p_adv) begin
    assert (head_valid);
`ifdef MUT_NEXT_EARLY
    assert (head_data == pp_nd);
`else
    assert (head_data == p_nd);
`endif
  end
`endif
endmodule
