// Formal harness of the emitted PIE core (`pie_core`, hdl/PIE-CORE.md), as aqm-emit writes it.
//
// Assumptions (the driver's side of the contract): `rst` in the first cycle and never again; `now` never
// decreases and steps at most 2^38 per cycle; a descriptor offered with in_valid stays offered, with the
// same len/ecn/tag, until accepted; register writes anywhere with any data except a CONTROL reset
// (bit 0; it would throw away descriptors in flight), BYTEMODE other than 0 (packet mode, so the
// verdict latency is VERDICT_LATENCY) and LINK_BYTE_TIME other than 0 (no link model, so egress is paced
// by out_ready alone); register reads of mapped addresses only (so that reg_err two cycles after a
// write is that write's).
//
// Property groups (each under its own `define, one SBY task each, bounded model checking):
//   VERDICT  every accepted descriptor gets exactly one verdict, VERDICT_LATENCY = 5 cycles later, with
//            its tag; no verdict without a descriptor; tag and code 0 without a verdict; CE mark (code
//            1) only for an ECN-capable descriptor; in_ready high in every cycle but the reset
//   QUEUE    shadow count q = enqueue verdicts (codes 0, 1) - departures: out_valid exactly when q > 0
//            but for last cycle's enqueue (no departure from an empty queue, no stall: a queued packet
//            is offered two cycles after its verdict, and with out_ready high leaves), q <= CAPACITY,
//            and BACKLOG_PKTS read back = q
//   LIMIT    no enqueue takes the queue beyond the LIMIT in effect: the count stage V admits against
//            (the contract's: verdicts before, departures before v-2) is below the LIMIT of v-3,
//            under any LIMIT writes; LIMIT read back as in REGS
//   BYTES    BACKLOG_BYTES read back = the sum of the lens of the queued packets: a shadow byte count,
//            + the len of each enqueued descriptor, - the len of each departure
//   FIFO     a tracked enqueued packet leaves after exactly the packets enqueued before it, with its tag
//   REGS     one register (any of ID, CONTROL, CAPACITY, 0x10-0x19) read back: its reset value after
//            reset, an accepted write's value from w+2, unchanged by a rejected write
//   SEED     the PRNG state, read as SEED_LO and SEED_HI, is never zero, whatever the seed writes
//   COUNTERS one counter (PKTS_IN, SENT_PKTS, DROPPED, OVERLIMIT, ECN_MARK) read back equals the count
//            of its events since reset or the last CONTROL clear, 32 bits wrapping: verdicts (of its
//            codes) count at the edge of their verdict cycle, so from the cycle after it; departures
//            from two cycles later; a clear of cycle w empties it at the edge of w+1 and wins over an
//            increment there
//   INREADY  (BYTEMODE writes allowed) in_ready is low for at most BYTEMODE_HOLD - 1 = 13 cycles in a
//            row: ingress never deadlocks; accepted - verdicts stays within 0 ... 5
//   COVER    verdict codes 0 (enqueued), 1 (CE mark), 2 (drop) and 3 (tail drop, after a LIMIT
//            write); a departure. With the controller abstracted (pie_core_props.cover.ys): its outputs
//            are cut, and prob is 0 until one commit of any value, with the flags of that value (the
//            controller's contract, proven by pie_ctrl_props.sv); codes 1 and 2 need prob > 0, which
//            the real controller reaches RECOMPUTE_CYCLES = 113 cycles after a PROB write
//
// Mutations (`define MUT_*, scripts/prove --mutants):
//   MUT_VERDICT_DROP  the harness loses the verdict of a descriptor tagged 16'h00A5 (breaks VERDICT)
//   MUT_QUEUE_PHANTOM the harness sees an extra departure of a packet tagged 16'h5A5A (breaks QUEUE)
//   MUT_LIMIT_SHORT   the harness expects one packet fewer than LIMIT at most (breaks LIMIT)
//   MUT_BYTES_SHORT   the harness counts the descriptor tagged 16'h0042 one byte short (breaks BYTES)
//   MUT_FIFO_SWAP     the harness sees bit 0 of out_tag flipped when the tag is 16'h0003 (breaks FIFO)
//   MUT_CLEAR_LATE    the harness applies a counter clear one edge late (breaks COUNTERS)
//   MUT_INREADY_LATE  the harness sees in_ready rise one cycle late (breaks INREADY: 14 cycles low)
//   MUT_REGS_IGNORE_ERR the harness treats a rejected write as accepted (breaks REGS)
`include "read_check.svh"

module pie_core_props (
`include "core_inputs.svh"
    ,
    input wire track
);
`define CORE_MODULE pie_core
`ifdef COVER
`include "pie_ctrl_consts.svh"
  // The controller abstracted (pie_core_props.cover.ys): prob is 0 from reset and takes any value at
  // one commit, with the flags that pie_ctrl_props.sv proves a commit gives; ppb 0 (packet mode); no
  // burst reset strobe (the burst allowance drains by the time between dequeues).
  (* anyseq *) reg abs_commit;
  (* anyconst *) reg [55:0] abs_value;
  reg abs_done = 1'b0;
  always @(posedge clock) if (abs_commit) abs_done <= 1'b1;
  wire [55:0] abs_prob = abs_done ? abs_value : 56'd0;
  wire abs_lt20 = abs_prob < PROB_20PCT[55:0], abs_le10 = abs_prob <= PROB_10PCT[55:0];
`define CORE_ABSTRACT_PORTS .\ctrl$prob (abs_prob), .\ctrl$prob_lt20 (abs_lt20), .\ctrl$prob_le10 (abs_le10), .\ctrl$ppb (56'd0), .\ctrl$burst_reset (1'b0),
`endif
`ifdef BYTES
  // The byte backlog, exposed by pie_core_props.bytes.ys.
  wire [31:0] hw_backlog;
`define CORE_ABSTRACT_PORTS .\ingress$backlog (hw_backlog),
`endif
`include "core_dut.svh"

  wire verdict_queue = vq_dut;
`ifdef MUT_FIFO_SWAP
  wire [15:0] out_tag = out_tag_dut ^ {15'd0, out_tag_dut == 16'h0003};
`else
  wire [15:0] out_tag = out_tag_dut;
`endif

  // ---- assumptions (beyond core_dut.svh's): register writes and reads
  always @(*) begin
    if (reg_we && reg_addr == 8'h02) assume (!reg_wdata[0]);
`ifdef INREADY
    if (reg_we && reg_addr == 8'h19) assume (reg_wdata == 32'd0);
`else
    if (reg_we && (reg_addr == 8'h16 || reg_addr == 8'h19)) assume (reg_wdata == 32'd0);
`endif
    if (reg_re) assume (reg_addr <= 8'h03 || reg_addr >= 8'h10 && reg_addr <= 8'h1D
                        || reg_addr >= 8'h20 && reg_addr <= 8'h2D);
  end

`ifdef MUT_QUEUE_PHANTOM
  wire enq = verdict_valid && verdict_code[1] == 1'b0 && verdict_tag != 16'h5A5A;
`else
  wire enq = verdict_valid && verdict_code[1] == 1'b0;
`endif

  // ---- shadow of the ingress pipeline: VERDICT_LATENCY = 5
  reg [4:0] sh_v = 5'd0;
  reg [15:0] sh_tag[0:4];
  reg [15:0] sh_len[0:4];
  reg [1:0] sh_ecn[0:4];
  integer i;
  always @(posedge clock) begin
    sh_v <= {sh_v[3:0], accepted};
    sh_tag[0] <= in_tag;
    sh_len[0] <= in_len;
    sh_ecn[0] <= in_ecn;
    for (i = 1; i < 5; i = i + 1) begin
      sh_tag[i] <= sh_tag[i-1];
      sh_len[i] <= sh_len[i-1];
      sh_ecn[i] <= sh_ecn[i-1];
    end
  end

`ifdef VERDICT
  always @(*) if (!init) begin
    assert (verdict_valid == sh_v[4]);
    if (verdict_valid) begin
      assert (verdict_tag == sh_tag[4]);
      if (verdict_code == 2'd1) assert (sh_ecn[4] != 2'd0);
    end else assert (verdict_tag == 16'd0 && verdict_code == 2'd0);
    assert (!verdict_queue);
    assert (in_ready);
  end
`endif

  // ---- shadow queue count
  reg [11:0] q = 12'd0;
  wire [11:0] q_eff = q + {11'd0, enq};
  always @(posedge clock) q <= init ? 12'd0 : q_eff - {11'd0, departure};

`ifdef QUEUE
  read_check #(12) backlog_pkts (clock, reg_re && reg_addr == 8'h28 && !init, q_eff, reg_rvalid, reg_rdata);
  // An entry reaches the head three cycles after its push, two after its verdict: the last cycle's
  // enqueue is counted in q but not at the head yet.
  reg enq_d = 1'b0;
  always @(posedge clock) enq_d <= enq && !init;
  always @(*) if (!init) begin
    assert (out_valid == (q - {11'd0, enq_d} != 12'd0));
    assert (q <= 12'd1024);
    assert (!out_queue && !out_drop);
  end
`endif

`ifdef LIMIT
  // LIMIT in effect in each cycle (regs_check.svh's `eff` for R = LIMIT: the reset value, then each
  // accepted write from w+2). Stage V admits the packet of verdict cycle v against the LIMIT of cycle
  // v-3 (taken in P1) and the count of cycle v-1 plus a departure of cycle v-2 (hdl/PIE-CORE.md):
  // enqueued verdicts before v minus departures before v-2. An enqueue is admitted only below it, so
  // no enqueue takes the queue beyond the LIMIT in effect.
  wire [7:0] R = 8'h14;
`include "pie_core_resets.svh"
`define REGS_APPLY 0
`include "regs_check.svh"
  reg [31:0] lim1 = 32'd0, lim2 = 32'd0, lim3 = 32'd0;
  reg dep1 = 1'b0, dep2 = 1'b0;
  always @(posedge clock) begin
    lim1 <= eff;
    lim2 <= lim1;
    lim3 <= lim2;
    dep1 <= departure && !init;
    dep2 <= dep1;
  end
  wire [11:0] admitted = q + {11'd0, dep1} + {11'd0, dep2};
`ifdef MUT_LIMIT_SHORT
  wire [31:0] lim_seen = lim3 - 32'd1;
`else
  wire [31:0] lim_seen = lim3;
`endif
  reg [2:0] age = 3'd0;
  always @(posedge clock) if (age != 3'd4) age <= age + 3'd1;
  always @(*) if (!init && age == 3'd4 && enq) assert ({20'd0, admitted} < lim_seen);
`endif

`ifdef BYTES
  // Shadow byte backlog: + the len of each enqueued descriptor (its verdict's, from the shadow of the
  // ingress pipeline), - the len of each departure. The core's byte backlog counts a push from the
  // verdict cycle (pushed the cycle before) and a departure of cycle d from d+3 (D2's edge); the
  // shadow counts both at the edge of their cycle, a departure two cycles late to match. So the
  // core's backlog of cycle c = the shadow + the len of an enqueue verdict of cycle c, in every cycle
  // (compared with the exposed register), and a BACKLOG_BYTES read in cycle r returns it in r+1.
`ifdef MUT_BYTES_SHORT
  wire [15:0] enq_len = sh_len[4] - {15'd0, verdict_tag == 16'h0042};
`else
  wire [15:0] enq_len = sh_len[4];
`endif
  reg [31:0] sb = 32'd0;
  reg [1:0] dep_d = 2'd0;
  reg [15:0] dep_len0 = 16'd0, dep_len1 = 16'd0;
  always @(posedge clock) begin
    dep_d <= init ? 2'd0 : {dep_d[0], departure};
    dep_len0 <= out_len;
    dep_len1 <= dep_len0;
    sb <= init ? 32'd0 : sb + (enq ? {16'd0, enq_len} : 32'd0) - (dep_d[1] ? {16'd0, dep_len1} : 32'd0);
  end
  wire [31:0] backlog_now = sb + (enq ? {16'd0, enq_len} : 32'd0);
  read_check backlog_bytes (clock, reg_re && reg_addr == 8'h27 && !init, backlog_now, reg_rvalid, reg_rdata);
  always @(*) if (!init) assert (hw_backlog == backlog_now);
`endif

`ifdef FIFO
  wire [11:0] count0 = q, count1 = 12'd0;
`include "fifo_check.svh"
`endif

`ifdef REGS
  // Writes to the registers up to 8'h19 only in this task (no PROB or SEED writes: the search stays small).
  always @(*) if (reg_we) assume (reg_addr <= 8'h19);
  (* anyconst *) reg [7:0] R;
  always @(*) assume (R == 8'h00 || R == 8'h02 || R == 8'h03 || R >= 8'h10 && R <= 8'h19);
  // reset_value(a): what a read of `a` returns after reset, from the golden register map.
`include "pie_core_resets.svh"
`define REGS_APPLY 0
`include "regs_check.svh"
`endif

`ifdef SEED
`define SEED_LO_ADDR 8'h1A
`include "seed_check.svh"
`endif

`ifdef COUNTERS
  (* anyconst *) reg [7:0] C;
  always @(*) assume (C == 8'h20 || C == 8'h21 || C == 8'h24 || C == 8'h25 || C == 8'h26);
  // The event that counter C counts in cycle c (a departure counts two cycles after it, a verdict
  // the cycle after it is on the verdict stream).
  reg dep1 = 1'b0, dep2 = 1'b0, vv1 = 1'b0;
  reg [1:0] vc1 = 2'd0;
  always @(posedge clock) begin
    dep1 <= departure && !init;
    dep2 <= dep1;
    vv1 <= verdict_valid && !init;
    vc1 <= verdict_code;
  end
  wire ev = C == 8'h20 ? vv1
          : C == 8'h21 ? dep2
          : C == 8'h24 ? vv1 && vc1[1]
          : C == 8'h25 ? vv1 && vc1 == 2'd3
          : vv1 && vc1 == 2'd1;
`include "counters_check.svh"
`endif

`ifdef INREADY
  // BYTEMODE writes allowed here: a packet in bytes holds P0 and in_ready is low for BYTEMODE_HOLD - 1
  // = 13 cycles at most; descriptors in flight (accepted, no verdict yet) never go below 0 or above 5.
`ifdef MUT_INREADY_LATE
  reg p_low = 1'b0;
  always @(posedge clock) p_low <= !in_ready;
  wire ready_seen = in_ready && !p_low;
`else
  wire ready_seen = in_ready;
`endif
  reg [5:0] low_n = 6'd0;
  reg [3:0] inflight = 4'd0;
  always @(posedge clock) begin
    low_n <= (!init && !ready_seen) ? low_n + 6'd1 : 6'd0;
    inflight <= init ? 4'd0 : inflight + {3'd0, accepted} - {3'd0, verdict_valid};
  end
  always @(*) if (!init) begin
    assert (low_n <= 6'd13);
    if (verdict_valid) assert (inflight != 4'd0);
    assert (inflight <= 4'd5);
  end
`endif

`ifdef COVER
  always @(*) if (!init) begin
    cover (verdict_valid && verdict_code == 2'd0);
    cover (verdict_valid && verdict_code == 2'd1);
    cover (verdict_valid && verdict_code == 2'd2);
    cover (verdict_valid && verdict_code == 2'd3);
    cover (departure);
  end
`endif
endmodule
