// The six forms of credit_loop.v side by side on the same pseudo-random inputs (a 64-bit xorshift),
// from a zero start: every output of B, B2, C, D and E equals A's on every cycle, for CYCLES cycles
// (hdl/tests/timing_models.rs, which scripts/recurrences runs, builds it with verilator --binary
// --timing; a mismatch ends it with $fatal).
module credit_loop_tb;
  localparam CYCLES = 1000000;
  reg clk = 0;
  initial forever #5 clk = ~clk;
  integer n = 0;
  reg [63:0] x = 64'h9E37_79B9_7F4A_7C15;
  wire [63:0] x1 = x ^ (x << 13);
  wire [63:0] x2 = x1 ^ (x1 >> 7);
  wire [63:0] xn = x2 ^ (x2 << 17);
  always @(posedge clk) x <= xn;
  // Lengths up to 2047 bytes (so the credit moves both ways), weights 0 to 100, queues mostly backlogged.
  wire [15:0] len_l = {5'd0, x[10:0]}, len_c = {5'd0, x[21:11]};
  wire [6:0] wc = x[28:22] > 7'd100 ? 7'd100 : x[28:22];
  wire hv_l = |x[31:29], hv_c = |x[34:32], deq = |x[36:35];
  wire [23:0] ca, cb, cb2, cc, cd, ce;
  wire pa, pb, pb2, pc, pd, pe;
  credit_loop_a a(.clk(clk), .len_l_i(len_l), .len_c_i(len_c), .hv_l_i(hv_l), .hv_c_i(hv_c),
                  .wc_i(wc), .deq_i(deq), .credit_o(ca), .pick_o(pa));
  credit_loop_b b(.clk(clk), .len_l_i(len_l), .len_c_i(len_c), .hv_l_i(hv_l), .hv_c_i(hv_c),
                  .wc_i(wc), .deq_i(deq), .credit_o(cb), .pick_o(pb));
  credit_loop_b2 b2(.clk(clk), .len_l_i(len_l), .len_c_i(len_c), .hv_l_i(hv_l), .hv_c_i(hv_c),
                    .wc_i(wc), .deq_i(deq), .credit_o(cb2), .pick_o(pb2));
  credit_loop_c c(.clk(clk), .len_l_i(len_l), .len_c_i(len_c), .hv_l_i(hv_l), .hv_c_i(hv_c),
                  .wc_i(wc), .deq_i(deq), .credit_o(cc), .pick_o(pc));
  credit_loop_d d(.clk(clk), .len_l_i(len_l), .len_c_i(len_c), .hv_l_i(hv_l), .hv_c_i(hv_c),
                  .wc_i(wc), .deq_i(deq), .credit_o(cd), .pick_o(pd));
  credit_loop_e e(.clk(clk), .len_l_i(len_l), .len_c_i(len_c), .hv_l_i(hv_l), .hv_c_i(hv_c),
                  .wc_i(wc), .deq_i(deq), .credit_o(ce), .pick_o(pe));
  // Not vacuous: the credit moves in at least a tenth of the cycles and crosses zero both ways.
  reg [23:0] last = 0;
  integer moves = 0, ups = 0, downs = 0;
  always @(posedge clk) begin
    if ({cb, pb} != {ca, pa} || {cb2, pb2} != {ca, pa} || {cc, pc} != {ca, pa}
        || {cd, pd} != {ca, pa}
        || {ce, pe} != {ca, pa}) begin
      $display("cycle %0d: credit A %0d B %0d B2 %0d C %0d D %0d E %0d, pick %b %b %b %b %b %b", n, ca,
               cb, cb2, cc, cd, ce, pa, pb, pb2, pc, pd, pe);
      $fatal(1, "the forms differ");
    end
    last <= ca;
    if (ca != last) moves <= moves + 1;
    if (last[23] && !ca[23]) ups <= ups + 1;
    if (!last[23] && ca[23]) downs <= downs + 1;
    n <= n + 1;
    if (n == CYCLES) begin
      if (moves < CYCLES / 10 || ups == 0 || downs == 0) $fatal(1, "the credit hardly moved");
      $display("credit_loop_tb: %0d cycles, the six forms agree; the credit moved in %0d, crossed 0 %0d and %0d times",
               n, moves, ups, downs);
      $finish;
    end
  end
endmodule
