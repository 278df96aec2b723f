// The FIFO check of a core harness: one tracked enqueued packet (`track` in its verdict cycle, once per
// reset) leaves its queue, sent or dropped, after exactly the packets enqueued into that queue before it,
// and with its tag. Included after the harness defines `enq` (an enqueue verdict) and the shadow counts
// of its queues, `count0` and `count1` (queue 0 and queue 1; a core with one queue gives count1 = 0).
  reg f_on = 1'b0, f_done = 1'b0, f_q = 1'b0;
  reg [15:0] f_tag = 16'd0;
  reg [11:0] f_ahead = 12'd0;
  wire [11:0] f_count = f_q ? count1 : count0;
  always @(posedge clock) begin
    if (init) begin
      f_on <= 1'b0;
      f_done <= 1'b0;
    end else if (!f_on && !f_done && enq && track) begin
      f_on <= 1'b1;
      f_q <= verdict_queue;
      f_tag <= verdict_tag;
      f_ahead <= (verdict_queue ? count1 : count0) - {11'd0, departure && out_queue == verdict_queue};
    end else if (f_on && departure && out_queue == f_q) begin
      if (f_ahead == 12'd0) begin
        f_on <= 1'b0;
        f_done <= 1'b1;
      end else f_ahead <= f_ahead - 12'd1;
    end
  end
  always @(*) if (!init && f_on) begin
    assert (f_ahead < f_count);
    if (out_valid && out_queue == f_q && f_ahead == 12'd0) assert (out_tag == f_tag);
  end
