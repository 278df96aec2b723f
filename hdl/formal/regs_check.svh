// The REGS check of a core harness: one register R (an `anyconst` the harness declares and bounds, with
// reset_value from <core>_resets.svh) reads back its reset value after reset, an accepted write's value
// once in effect, and is unchanged by a rejected write. Included after `define REGS_APPLY N: an
// accepted write of cycle w is known in w+2 (no reg_err that cycle) and in effect from w+2+N.
  localparam [5:0] APPLY = `REGS_APPLY;
  wire writable = R >= 8'h10;
  reg w1 = 1'b0, w2 = 1'b0;
  reg [7:0] a1 = 8'd0, a2 = 8'd0;
  reg [31:0] d1 = 32'd0, d2 = 32'd0;
  reg [31:0] sh = 32'd0, pd = 32'd0;
  reg pend = 1'b0;
  reg [5:0] pcnt = 6'd0;
`ifdef MUT_REGS_IGNORE_ERR
  wire ok2 = 1'b1;
`else
  wire ok2 = !reg_err;
`endif
  wire take = w2 && a2 == R && writable && ok2;
  wire due = pend && pcnt == 6'd0;
  wire [31:0] eff = init ? reset_value(R) : (APPLY == 6'd0 && take) ? d2 : due ? pd : sh;
  reg rd = 1'b0;
  reg [31:0] rd_exp = 32'd0;
  always @(posedge clock) begin
    w1 <= reg_we && !init;
    a1 <= reg_addr;
    d1 <= reg_wdata;
    w2 <= w1;
    a2 <= a1;
    d2 <= d1;
    sh <= eff;
    if (due) pend <= 1'b0;
    else if (pend) pcnt <= pcnt - 6'd1;
    if (take && APPLY != 6'd0) begin
      pend <= 1'b1;
      pd <= d2;
`ifdef MUT_REGS_EARLY
      pcnt <= 6'd0;
`else
      pcnt <= APPLY - 6'd1;
`endif
    end
    rd <= reg_re && reg_addr == R && !init;
    rd_exp <= eff;
  end
  always @(*) if (!init && rd) assert (reg_rvalid && reg_rdata == rd_exp);
