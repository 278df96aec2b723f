// The checks of a small descriptor queue harness (desc_queue_props.sv, head_queue_props.sv): the DUT,
// the harness mutations, the assumptions and the COUNT, HEAD, FIFO and COVER properties. Included in the
// harness module after it defines `QUEUE_MODULE (the design's module) and the localparam LAG (2, 3
// or 4: how many cycles after its push an entry can be at the head), and QUEUE_LOOK for a queue with
// the ports `next_data` and `advance` (the lag-4 queue). The module's ports: clock, rst, push,
// push_data[7:0], pop, track.
  wire hv_dut;
  wire [7:0] hd_dut;
  wire [3:0] count;
  // The lag-4 queue's next entry and its advance (`define QUEUE_LOOK).
  wire [7:0] next_data;
  wire advance;
  `QUEUE_MODULE dut (
      .clock(clock),
      .rst(rst),
      .push(push),
      .push_data(push_data),
      .pop(pop),
      .head_valid(hv_dut),
      .head_data(hd_dut),
`ifdef QUEUE_LOOK
      .next_data(next_data),
      .advance(advance),
`endif
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

  // Shadow count.
  reg [4:0] f_cnt = 5'd0;
  always @(posedge clock)
    if (rst) f_cnt <= 5'd0;
    else f_cnt <= f_cnt + {4'd0, push} - {4'd0, taken};

`ifdef COUNT
  always @(*) if (!init) begin
    assert (count <= 4'd8);
    assert ({1'b0, count} == f_cnt);
    // No underflow: a head is shown only while an entry is held.
    assert (!head_valid || count != 4'd0);
  end
`endif

`ifdef HEAD
  // p_*: cycle c's values, seen in c+1; pp_push / ppp_push: the pushes of cycles c-1 and c-2 (none
  // across a reset), which a queue with a lag of 3 (the first) or 4 (both) does not show yet.
  reg [3:0] p_count = 4'd0;
  reg p_pop = 1'b0, p_rst = 1'b0, p_push = 1'b0, pp_push = 1'b0, ppp_push = 1'b0;
  always @(posedge clock) begin
    p_count <= count;
    p_pop <= taken;
    p_rst <= rst;
    p_push <= push && !rst;
    pp_push <= p_push && !rst;
    ppp_push <= pp_push && !rst;
  end
  always @(*) if (!init) begin
    if (p_rst) assert (!head_valid);
    else assert (head_valid == (p_count - {3'd0, p_pop} - {3'd0, pp_push && LAG >= 3}
                                - {3'd0, ppp_push && LAG >= 4} != 4'd0));
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

`ifdef COVER
  always @(*) cover (!init && count == 4'd8 && head_valid);
`endif
