// A register read-back check of a core harness, included before the harness module: a read of cycle r
// (`re`, the harness's own address match, low in the reset step) returns in r+1 `value` of cycle r,
// zero-extended to 32 bits, with reg_rvalid.
module read_check #(
    parameter W = 32
) (
    input wire clock,
    input wire re,
    input wire [W-1:0] value,
    input wire rvalid,
    input wire [31:0] rdata
);
  reg rd = 1'b0;
  reg [W-1:0] expect = {W{1'b0}};
  wire [31:0] expect32 = expect;
  always @(posedge clock) begin
    rd <= re;
    expect <= value;
  end
  always @(*) if (rd) assert (rvalid && rdata == expect32);
endmodule
