// The COUNTERS check of a core harness: one counter C (an `anyconst` the harness declares and bounds)
// read back equals the count of its events since reset or the last CONTROL clear, 32 bits wrapping.
// Included after the harness defines `ev`: an event of C whose count is first visible in this cycle.
// A CONTROL write with bit 1 in cycle w clears at the edge of w+1 and wins over an increment at that
// edge: the value of cycle w+2 is 0.
  reg c1 = 1'b0, c2 = 1'b0, c3 = 1'b0;
  always @(posedge clock) begin
    c1 <= reg_we && reg_addr == 8'h02 && reg_wdata[1] && !init;
    c2 <= c1;
    c3 <= c2;
  end
`ifdef MUT_CLEAR_LATE
  wire cleared = c3;
`else
  wire cleared = c2;
`endif
  reg [31:0] cnt = 32'd0;
  wire [31:0] cnt_now = (init || cleared) ? 32'd0 : cnt + {31'd0, ev};
  reg rd_c = 1'b0;
  reg [31:0] rd_c_exp = 32'd0;
  always @(posedge clock) begin
    cnt <= cnt_now;
    rd_c <= reg_re && reg_addr == C && !init;
    rd_c_exp <= cnt_now;
  end
  always @(*) if (!init && rd_c) assert (reg_rvalid && reg_rdata == rd_c_exp);
