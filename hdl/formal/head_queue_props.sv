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
//
// Mutations (`define MUT_*), used by scripts/prove --mutants:
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
  wire hv_dut;
  wire [7:0] hd_dut;
  wire [3:0] count;
  head_queue_small dut (
      .clock(clock),
      .rst(rst),
      .push(push),
      .push_data(push_data),
      .pop(pop),
      .head_valid(hv_dut),
      .head_data(hd_dut),
      .count(count)
  );

`ifdef MUT_LATE_HEAD
  reg hv_late = 0;
  always @(posedge clock) hv_late <= hv_dut;
  wire head_valid = hv_late;
`else
  wire head_valid = hv_dut;
`endif
`ifdef MUT_FLIP_DATA
  wire [7:0] head_data = hd_dut ^ {7'd0, count >= 4'd5};
`else
  wire [7:0] head_data = hd_dut;
`endif

  reg init = 1'b1;
  always @(posedge clock) init <= 1'b0;
  always @(*) if (init) assume (rst);
`ifndef MUT_OVERFILL
  always @(*) assume (!(push && count == 4'd8));
`endif

  // The queue pops only while it shows a head (pop is ignored otherwise).
  wire taken = pop && hv_dut;

  reg [4:0] f_cnt = 5'd0;
  always @(posedge clock)
    if (rst) f_cnt <= 5'd0;
    else f_cnt <= f_cnt + {4'd0, push} - {4'd0, taken};

`ifdef COUNT
  always @(*) if (!init) begin
    assert (count <= 4'd8);
    assert ({1'b0, count} == f_cnt);
    assert (!head_valid || count != 4'd0);
  end
`endif

`ifdef HEAD
  // p_*: cycle c's values, seen in c+1; pp_push: the push of cycle c-1 (none across a reset).
  reg [3:0] p_count = 4'd0;
  reg p_pop = 1'b0, p_rst = 1'b0, p_push = 1'b0, pp_push = 1'b0;
  always @(posedge clock) begin
    p_count <= count;
    p_pop <= taken;
    p_rst <= rst;
    p_push <= push && !rst;
    pp_push <= p_push && !rst;
  end
  always @(*) if (!init) begin
    if (p_rst) assert (!head_valid);
    else assert (head_valid == (p_count - {3'd0, p_pop} - {3'd0, pp_push} != 4'd0));
  end
`endif

`ifdef FIFO
  // One tracked entry: `track` in the cycle of a push picks it (once per reset). f_ahead = the entries
  // queued before it that have not left yet.
  reg f_on = 1'b0, f_done = 1'b0;
  reg [7:0] f_data = 8'd0;
  reg [3:0] f_ahead = 4'd0;
  always @(posedge clock) begin
    if (rst) begin
      f_on <= 1'b0;
      f_done <= 1'b0;
    end else if (!f_on && !f_done && push && track) begin
      f_on <= 1'b1;
      f_data <= push_data;
      f_ahead <= count - {3'd0, taken};
    end else if (f_on && taken) begin
      if (f_ahead == 4'd0) begin
        f_on <= 1'b0;
        f_done <= 1'b1;
      end else f_ahead <= f_ahead - 4'd1;
    end
  end
  always @(*) if (!init && f_on) begin
    assert (f_ahead < {1'b0, count} || f_ahead == 4'd0 && count != 0);
    if (head_valid && f_ahead == 4'd0) assert (head_data == f_data);
  end
`endif
endmodule
