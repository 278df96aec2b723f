// The PRNG check of a core harness: the generator's state, read as SEED_LO then SEED_HI in the next
// cycle (the _LO read latches the high half of the same cycle), is never zero, whatever is written to
// the seed registers (the core rejects a zero seed). Included after `define SEED_LO_ADDR (SEED_HI is the
// next address).
  reg s_lo = 1'b0, s_hi = 1'b0;
  reg [31:0] s_lo_val = 32'd0;
  always @(posedge clock) begin
    s_lo <= reg_re && reg_addr == `SEED_LO_ADDR && !init;
    s_hi <= s_lo && reg_re && reg_addr == `SEED_LO_ADDR + 8'd1;
    if (s_lo) s_lo_val <= reg_rdata;
  end
  always @(*) if (!init && s_hi) assert (reg_rvalid && {reg_rdata, s_lo_val} != 64'd0);
