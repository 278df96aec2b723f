// The input ports of a core (hdl/PIE-CORE.md, hdl/DUALPI2-CORE.md), which a core harness takes as its own
// free inputs: included in the harness's port list.
    input wire clock,
    input wire rst,
    input wire [63:0] now,
    input wire in_valid,
    input wire [15:0] in_len,
    input wire [1:0] in_ecn,
    input wire [15:0] in_tag,
    input wire out_ready,
    input wire [7:0] reg_addr,
    input wire [31:0] reg_wdata,
    input wire reg_we,
    input wire reg_re
