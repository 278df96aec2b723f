// A core under proof and the driver's side of its contract, shared by the core harnesses: included in the
// body of a harness after `define CORE_MODULE (pie_core or dualpi2_core).
//
// A harness whose job cuts signals inside the core into inputs (a `<harness>.<group>.ys` preparation,
// for example the controller's outputs) defines CORE_ABSTRACT_PORTS: the port connections that drive
// them.
//
// The core's outputs a mutant may alter come out as *_dut; verdict_valid and verdict_tag are defined
// here, verdict_queue and out_tag by the harness.
//
// Assumptions: `rst` in the first cycle and never again; `now` never decreases and steps at most 2^38
// per cycle; a descriptor offered with in_valid stays offered, with the same len/ecn/tag, until
// accepted. The register-write assumptions are each harness's own.
  wire in_ready, vv_dut, vq_dut, out_valid, out_queue, out_drop;
  wire [15:0] vtag_dut, out_len, out_tag_dut;
  wire [1:0] verdict_code, out_ecn;
  wire [39:0] out_sojourn, next_update, link_free;
  wire [31:0] reg_rdata;
  wire reg_rvalid, reg_err, idle, link_busy;
  `CORE_MODULE dut (
      .clock(clock),
      .rst(rst),
      .now(now),
      .in_valid(in_valid),
      .in_ready(in_ready),
      .in_len(in_len),
      .in_ecn(in_ecn),
      .in_tag(in_tag),
      .verdict_valid(vv_dut),
      .verdict_tag(vtag_dut),
      .verdict_code(verdict_code),
      .verdict_queue(vq_dut),
      .out_valid(out_valid),
      .out_ready(out_ready),
      .out_len(out_len),
      .out_ecn(out_ecn),
      .out_tag(out_tag_dut),
      .out_sojourn(out_sojourn),
      .out_queue(out_queue),
      .out_drop(out_drop),
      .reg_addr(reg_addr),
      .reg_wdata(reg_wdata),
      .reg_we(reg_we),
      .reg_re(reg_re),
      .reg_rdata(reg_rdata),
      .reg_rvalid(reg_rvalid),
      .reg_err(reg_err),
      .idle(idle),
      .next_update(next_update),
      .link_free(link_free),
`ifdef CORE_ABSTRACT_PORTS
      `CORE_ABSTRACT_PORTS
`endif
      .link_busy(link_busy)
  );

  // MUT_VERDICT_DROP: the harness loses the verdict of a descriptor tagged 16'h00A5 (breaks VERDICT).
`ifdef MUT_VERDICT_DROP
  wire verdict_valid = vv_dut && vtag_dut != 16'h00A5;
`else
  wire verdict_valid = vv_dut;
`endif
  wire [15:0] verdict_tag = vtag_dut;

  reg init = 1'b1;
  always @(posedge clock) init <= 1'b0;
  always @(*) assume (rst == init);
  reg [63:0] p_now = 64'd0;
  reg p_stall = 1'b0;
  reg [15:0] p_len = 16'd0, p_tag = 16'd0;
  reg [1:0] p_ecn = 2'd0;
  always @(posedge clock) begin
    p_now <= now;
    p_stall <= in_valid && !in_ready;
    p_len <= in_len;
    p_tag <= in_tag;
    p_ecn <= in_ecn;
  end
  always @(*) if (!init) begin
    assume (now >= p_now && now - p_now <= 64'h40_0000_0000);
    if (p_stall) assume (in_valid && in_len == p_len && in_tag == p_tag && in_ecn == p_ecn);
  end

  wire accepted = in_valid && in_ready;
  wire departure = out_valid && out_ready;
