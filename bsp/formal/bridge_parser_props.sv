// Formal harness of the board bridge's frame parser (bsp/src/bridge/parser.rs), emitted alone as
// `bridge_parser` with one UART cycle per bit (FORMAL_CPB = 1: the truncation timeout, 128 bit times,
// is T = 128 cycles), with bridge_parser_props.ys's preparation (the parse state and the silence
// counter exposed, every register free at step 0).
//
// Property groups (one SBY task each):
//   LIVE   (k-induction; reset in the first cycle, then any bytes, resets and `done` at any time) the
//          parser never stops accepting frames: its state is always one of its six; a frame in
//          progress (LEN, CMD, payload or CRC awaited) has seen a byte within the last T cycles, and
//          after T cycles without one it is held as TRUNCATED; a held frame is released to Idle by
//          `done`. So whatever garbage came before, T + 1 quiet cycles and the executor's answer put
//          the parser in Idle, where it waits for SYNC.
//   FRAME  (bounded; from any Idle state, every other register free, `done` low) a frame sent byte
//          by byte with gaps of up to 3 cycles (SYNC, LEN 0-3, CMD, the payload, a CRC byte) is held
//          after its last byte, not before, not truncated, with its LEN, CMD and `whole`, and its
//          payload on the read port. With LIVE this is the resynchronisation: after garbage, quiet
//          and an answer, the next frame parses.
//   CRCSEQ (k-induction) the running CRC is 0 after a SYNC in Idle and takes one CRC step per byte
//          of LEN, CMD and the payload, nothing else; the CRC byte gives OK exactly when it equals
//          it, BAD_CRC otherwise. (A frame-level check of the CRC value against a second CRC-8
//          network ran past 8 minutes at one step: two XOR networks are hard for a SAT solver, one
//          step at a time they are not.)
//
//   CRC    (any inputs) the parser's CRC step block is CRC-8 (polynomial 0x07) of one more byte
//
// Mutations: MUT_TIMEOUT_EARLY (the harness takes T - 1 for the timeout: breaks LIVE, at depth 130), MUT_FRAME_CMD
// (the harness expects LEN for CMD: breaks FRAME), MUT_CRC_INIT (the harness's CRC starts at 0xFF
// instead of 0: breaks CRCSEQ), MUT_CRC_POLY (the harness expects another bit 0: breaks CRC).
module bridge_parser_props (
    input wire clock,
    input wire rst,
    input wire [7:0] rx_data,
    input wire rx_valid,
    input wire done,
    input wire [7:0] read_address
);
  localparam [2:0] IDLE = 3'd0, LEN = 3'd1, CMD = 3'd2, PAYLOAD = 3'd3, CRC = 3'd4, READY = 3'd5;
  localparam [1:0] OK = 2'd0, BAD_CRC = 2'd1, TRUNCATED = 2'd2;
`ifdef MUT_TIMEOUT_EARLY
  localparam [15:0] T = 16'd127;
`else
  localparam [15:0] T = 16'd128;
`endif
  wire ready, whole;
  wire [1:0] status;
  wire [7:0] len, command, read_data;
  wire [2:0] state;
  wire [7:0] crc;
  wire [15:0] idle_cnt;
  bridge_parser dut (
      .clock(clock),
      .rst(rst),
      .rx_data(rx_data),
      .rx_valid(rx_valid),
      .ready(ready),
      .status(status),
      .len(len),
      .command(command),
      .whole(whole),
      .done(done),
      .read_address(read_address),
      .read_data(read_data),
      .\state$q (state),
      .\idle_cnt$q (idle_cnt),
      .\crc$q (crc)
  );
  reg init = 1'b1;
  always @(posedge clock) init <= 1'b0;
  wire mid = state == LEN || state == CMD || state == PAYLOAD || state == CRC;

`ifdef LIVE
  always @(*) if (init) assume (rst);
  reg p_mid = 1'b0, p_quiet_end = 1'b0, p_release = 1'b0, p_rst = 1'b0;
  always @(posedge clock) begin
    p_rst <= rst;
    p_quiet_end <= mid && idle_cnt == T && !rx_valid;
    p_release <= state == READY && done;
  end
  always @(*) if (!init) begin
    assert (state <= READY);
    assert (ready == (state == READY));
    if (mid) assert (idle_cnt <= T);
    if (!p_rst && p_quiet_end) assert (state == READY && status == TRUNCATED);
    if (!p_rst && p_release) assert (state == IDLE);
    if (p_rst) assert (state == IDLE && idle_cnt == 16'd0);
  end
`endif

`ifdef CRC
  // The CRC step block = CRC-8 (polynomial 0x07, most significant bit first) of one more byte.
  function [7:0] crc8_byte(input [7:0] c, input [7:0] b);
    integer i;
    begin
      crc8_byte = c ^ b;
      for (i = 0; i < 8; i = i + 1)
        crc8_byte = crc8_byte[7] ? {crc8_byte[6:0], 1'b0} ^ 8'h07 : {crc8_byte[6:0], 1'b0};
    end
  endfunction
  wire [7:0] step_out;
  \bridge_parser$crc_step step (.crc(rx_data), .data(read_address), .out(step_out));
`ifdef MUT_CRC_POLY
  always @(*) assert (step_out == (crc8_byte(rx_data, read_address) ^ 8'h01));
`else
  always @(*) assert (step_out == crc8_byte(rx_data, read_address));
`endif
`endif

`ifdef CRCSEQ
  // The running CRC (the exposed `crc` register): 0 from a SYNC in Idle, then one CRC step per byte
  // of LEN, CMD and the payload, unchanged otherwise; the CRC byte sets OK exactly when it equals it.
  always @(*) if (init) assume (rst);
`ifdef MUT_CRC_INIT
  localparam [7:0] CRC_INIT = 8'hFF;
`else
  localparam [7:0] CRC_INIT = 8'h00;
`endif
  wire [7:0] step_out;
  \bridge_parser$crc_step step (.crc(crc), .data(rx_data), .out(step_out));
  reg p_rst = 1'b0, p_start = 1'b0, p_step = 1'b0, p_check = 1'b0, p_quiet = 1'b0;
  reg [7:0] p_out = 8'd0, p_crc = 8'd0, p_byte = 8'd0;
  always @(posedge clock) begin
    p_rst <= rst;
    p_start <= state == IDLE && rx_valid && rx_data == 8'hA5;
    p_step <= rx_valid && (state == LEN || state == CMD || state == PAYLOAD);
    p_check <= rx_valid && state == CRC && !(idle_cnt == T);
    p_quiet <= !rx_valid;
    p_out <= step_out;
    p_crc <= crc;
    p_byte <= rx_data;
  end
  always @(*) if (!init && !p_rst) begin
    if (p_start) assert (crc == CRC_INIT);
    else if (p_step) assert (crc == p_out);
    else assert (crc == p_crc);
    if (p_check) assert (state == READY && status == (p_byte == p_crc ? OK : BAD_CRC));
  end
`endif

`ifdef FRAME
  // The frame: LEN 0-3, CMD, payload bytes, any CRC byte (whether it is right is CRCSEQ's).
  (* anyconst *) reg [7:0] f_len, f_cmd, f_p0, f_p1, f_p2, f_crc;
  always @(*) begin
    assume (f_len <= 8'd3);
    assume (!rst && !done);
    if (init) assume (state == IDLE);
  end
  // Byte k of the frame (0 SYNC, 1 LEN, 2 CMD, 3 ... 2 + LEN the payload, then the CRC).
  reg [2:0] k = 3'd0;
  wire [2:0] last = 3'd3 + f_len[2:0];
  wire [7:0] byte_k = k == 3'd0 ? 8'hA5 : k == 3'd1 ? f_len : k == 3'd2 ? f_cmd
                    : k == last ? f_crc
                    : k == 3'd3 ? f_p0 : k == 3'd4 ? f_p1 : f_p2;
  reg sent = 1'b0;
  reg [1:0] gap = 2'd0;
  always @(*) begin
    if (rx_valid) assume (!sent && rx_data == byte_k);
    if (!sent && gap == 2'd3) assume (rx_valid);  // gaps of at most 3 cycles
  end
  always @(posedge clock) begin
    gap <= rx_valid ? 2'd0 : gap + 2'd1;
    if (rx_valid) begin
      k <= k + 3'd1;
      if (k == last) sent <= 1'b1;
    end
  end
  // Held after its last byte, with its fields; the payload on the read port.
  reg [7:0] p_addr = 8'd0;
  always @(posedge clock) p_addr <= read_address;
  always @(*) if (!init) begin
    assert (ready == sent);
    if (ready) begin
`ifdef MUT_FRAME_CMD
      assert (status != TRUNCATED && command == f_len);
`else
      assert (status != TRUNCATED);
`endif
      assert (len == f_len && command == f_cmd);
      assert (whole == (f_len == 8'd0));
`ifndef NO_READ
      if (p_addr == 8'd0 && f_len >= 8'd1) assert (read_data == f_p0);
      if (p_addr == 8'd1 && f_len >= 8'd2) assert (read_data == f_p1);
      if (p_addr == 8'd2 && f_len >= 8'd3) assert (read_data == f_p2);
`endif
    end
  end
`endif
endmodule
