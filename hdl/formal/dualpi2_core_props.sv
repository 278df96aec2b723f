// Formal harness of the emitted DualPI2 core (`dualpi2_core`, hdl/DUALPI2-CORE.md), as aqm-emit writes it.
//
// Assumptions (the driver's side of the contract): `rst` in the first cycle and never again; `now` never
// decreases and steps at most 2^38 per cycle; a descriptor offered with in_valid stays offered, with the
// same len/ecn/tag, until accepted; the low two bits of in_tag carry in_ecn (a harness convention, so
// that a departure's tag tells its arrival ECN); register writes anywhere with any data except a
// CONTROL reset (bit 0) and LINK_BYTE_TIME other than 0 (no link model); reads of mapped addresses only.
//
// Property groups (each under its own `define, one SBY task each, bounded model checking):
//   VERDICT  every accepted descriptor gets exactly one verdict, VERDICT_LATENCY = 2 cycles later, with
//            its tag; codes 0 or 3 only; zeros without a verdict; in_ready high but in the reset
//   NOTECT   a Not-ECT descriptor (ecn 0) is never classified into L: neither its verdict nor its
//            departure names queue 1
//   QUEUE    shadow counts per queue q = enqueue verdicts - departures (sent or dropped at dequeue):
//            no departure from a queue whose count is 0, each count <= HW_QUEUE_CAPACITY = 512, and no
//            stall: with packets queued (and the link model off) a packet is shown in every cycle, but
//            for those enqueued in the last two cycles (not at their heads yet), so with out_ready high one
//            leaves in every cycle
//   LIMIT    no enqueue takes the two queues beyond the LIMIT in effect: the count stage V admits
//            against (the contract's, followed through the pops) is below its cycle's LIMIT; with the
//            limits cut (dualpi2_core_props.limit.ys) and any LIMIT in range in any cycle
//   BYTES    BACKLOG_BYTES_L/C read back = the sum of the lens of the packets queued in L / C: shadow
//            byte counts per queue, + the len of each enqueued descriptor, - the len of each pop; each
//            pop is the next departure, with its queue and len
//   GAP      the ingress's gap to 2 MTU (the egress's 2 MTU gate reads it) is L + C - 2 MTU in every
//            cycle (modulo 2^22, the backlogs' width), from the backlogs and the MTU in effect, for any
//            parameter writes (k-induction: from any state), with the egress's pops cut to any pops
//            of one queue at a time (dualpi2_core_props.gap.ys)
//   FIFO     per queue: a tracked enqueued packet leaves its queue (sent or dropped) after exactly the
//            packets enqueued into that queue before it, with its tag
//   SEED     the PRNG state, read as SEED_LO and SEED_HI, is never zero, whatever the seed writes
//   COUNTERS one counter (PKTS_IN_L/C, SENT_PKTS_L/C, DROPPED_ENQ_L/C, DROPPED_AQM_L/C) read back
//            equals the count of its events since reset or the last CONTROL clear, 32 bits wrapping:
//            verdicts count from their verdict cycle, departures (sent or dropped) from two cycles
//            after their departure cycle; a clear of cycle w empties it at the edge of w+1 and wins
//            there
//   REGS     one register (ID, CAPACITY or a parameter 0x10-0x1C) read back: its reset value after reset,
//            an accepted write's value from w+PARAM_CYCLES (40), unchanged by a rejected write
//   COVER    verdicts into L and into C; a departure; a Classic drop, an L mark, a Classic mark of
//            ECT(0), an L drop at dequeue; a tail drop (code 3); a step mark and an overload
//            decision (STEP_MARKS and OVERLOAD read back non-zero). With the controller abstracted
//            (dualpi2_core_props.cover.ys): its outputs are cut, and p' is 0 until one commit of any
//            value, with kp and overload of that value and k = 2 (no K writes); the real controller
//            reaches p' > 0 RECOMPUTE_CYCLES = 42 cycles after a PROB write. And with the parameter
//            engine's limits abstracted the same way: LIMIT and the byte limit (LIMIT x 2 MTU) are
//            their reset values until one commit of any LIMIT in the register's range 1-1024 (no
//            LIMIT or MTU writes); the real engine commits a LIMIT write PARAM_CYCLES = 40 later
//
// Mutations (`define MUT_*, scripts/prove --mutants):
//   MUT_VERDICT_DROP     the harness loses the verdict of a descriptor tagged 16'h00A5 (breaks VERDICT)
//   MUT_NOTECT_L         the harness sees verdict_queue 1 for tag 16'h0010 (breaks NOTECT)
//   MUT_QUEUE_PHANTOM    the harness misses the enqueue verdict of tag 16'h5A5A (breaks QUEUE)
//   MUT_LIMIT_SHORT      the harness expects one packet fewer than LIMIT at most (breaks LIMIT)
//   MUT_BYTES_SHORT      the harness counts the descriptor tagged 16'h0042 one byte short (breaks BYTES)
//   MUT_GAP_NO_C         the harness leaves C's backlog out of the gap (breaks GAP)
//   MUT_FIFO_SWAP        the harness sees bit 2 of out_tag flipped when the tag is 16'h0007 (breaks FIFO)
//   MUT_CLEAR_LATE       the harness applies a counter clear one edge late (breaks COUNTERS)
//   MUT_REGS_EARLY       the harness expects an accepted write from w+3, not w+40 (breaks REGS)
//   MUT_REGS_IGNORE_ERR  the harness treats a rejected write as accepted (breaks REGS, from depth 43)
`include "read_check.svh"

module dualpi2_core_props (
`include "core_inputs.svh"
    ,
    input wire track
);
`define CORE_MODULE dualpi2_core
`ifdef COVER
`include "dualpi2_ctrl_consts.svh"
  // The controller abstracted (dualpi2_core_props.cover.ys): p' is 0 from reset and takes any value at
  // one commit, with kp = k x p' (no K writes here: k is its reset value, 2) and the overload flag
  // that dualpi2_ctrl_props.sv proves a commit gives.
  (* anyseq *) reg abs_commit;
  (* anyconst *) reg [31:0] abs_value;
  reg abs_done = 1'b0;
  always @(posedge clock) if (abs_commit) abs_done <= 1'b1;
  wire [31:0] abs_prob = abs_done ? abs_value : 32'd0;
  wire [39:0] abs_kp = {7'd0, abs_prob, 1'b0};
  wire abs_overload = abs_kp[39:32] != 8'd0;
  // The parameter engine's limits: a LIMIT write's commit, any value the register accepts.
`include "dualpi2_core_resets.svh"
  (* anyseq *) reg lim_commit;
  (* anyconst *) reg [10:0] lim_value;
  always @(*) assume (lim_value >= 11'd1 && lim_value <= 11'd1024);
  reg lim_done = 1'b0;
  always @(posedge clock) if (lim_commit) lim_done <= 1'b1;
  wire [31:0] lim_reset = reset_value(8'h19), mtu_reset = reset_value(8'h1A);
  wire [10:0] abs_limit = lim_done ? lim_value : lim_reset[10:0];
  // The ingress reads the byte limit after the edge (its register's input): LIMIT's after the edge.
  wire [10:0] abs_limit_next = lim_done || lim_commit ? lim_value : lim_reset[10:0];
  wire [31:0] abs_byte_limit_next = {21'd0, abs_limit_next} * mtu_reset * 32'd2;
`define CORE_ABSTRACT_PORTS .\ctrl$prob (abs_prob), .\ctrl$kp (abs_kp), .\ctrl$overload (abs_overload), .\params$limit (abs_limit), .\params$byte_limit_next (abs_byte_limit_next[22:0]),
`endif
`ifdef BYTES
`define POPS
`elsif LIMIT
`define POPS
`endif
`ifdef POPS
  // The egress's pops (which queue, with which len), exposed by the group's preparation.
  wire pop_l, pop_c;
  wire [15:0] pop_len;
`endif
`ifdef LIMIT
  // The limits, cut by dualpi2_core_props.limit.ys: any LIMIT in range in any cycle, any byte limit.
  (* anyseq *) reg [10:0] abs_limit;
  (* anyseq *) reg [22:0] abs_byte_limit_next;
  always @(*) assume (abs_limit >= 11'd1 && abs_limit <= 11'd1024);
`define CORE_ABSTRACT_PORTS .\params$limit (abs_limit), .\params$byte_limit_next (abs_byte_limit_next), .\egress$pop_l (pop_l), .\egress$pop_c (pop_c), .\egress$pop_len (pop_len),
`endif
`ifdef BYTES
  // The byte backlogs, exposed by dualpi2_core_props.bytes.ys.
  wire [21:0] hw_bytes_l, hw_bytes_c;
`define CORE_ABSTRACT_PORTS .\ingress$bytes_l (hw_bytes_l), .\ingress$bytes_c (hw_bytes_c), .\egress$pop_l (pop_l), .\egress$pop_c (pop_c), .\egress$pop_len (pop_len),
`endif
`ifdef GAP
  // The byte backlogs, the gap to 2 MTU and the MTU in effect, exposed by dualpi2_core_props.gap.ys.
  wire [21:0] hw_bytes_l, hw_bytes_c;
  wire [23:0] hw_gap;
  wire [10:0] hw_mtu;
  // The egress's pops, cut by the group's preparation: any pop of any len, never from both queues
  // at once (BYTES asserts that of the egress's).
  (* anyseq *) reg cut_pop_l, cut_pop_c;
  (* anyseq *) reg [15:0] cut_pop_len;
  always @(*) assume (!(cut_pop_l && cut_pop_c));
`define CORE_ABSTRACT_PORTS .\ingress$bytes_l (hw_bytes_l), .\ingress$bytes_c (hw_bytes_c), .\ingress$gap (hw_gap), .\params$mtu (hw_mtu), .\egress$pop_l (cut_pop_l), .\egress$pop_c (cut_pop_c), .\egress$pop_len (cut_pop_len),
`endif
`include "core_dut.svh"

`ifdef MUT_FIFO_SWAP
  wire [15:0] out_tag = out_tag_dut ^ {13'd0, out_tag_dut == 16'h0007, 2'd0};
`else
  wire [15:0] out_tag = out_tag_dut;
`endif
`ifdef MUT_NOTECT_L
  wire verdict_queue = vq_dut || vv_dut && vtag_dut == 16'h0010;
`else
  wire verdict_queue = vq_dut;
`endif

  // ---- assumptions (beyond core_dut.svh's): the tag carries the ECN field; register writes and reads
  always @(*) begin
    assume (in_tag[1:0] == in_ecn);
    if (reg_we && reg_addr == 8'h02) assume (!reg_wdata[0]);
    if (reg_we && reg_addr == 8'h1C) assume (reg_wdata == 32'd0);
    if (reg_re) assume (reg_addr <= 8'h03 || reg_addr >= 8'h10 && reg_addr <= 8'h39);
  end

  reg [1:0] sh_v = 2'd0;
  reg [15:0] sh_tag0 = 16'd0, sh_tag1 = 16'd0;
  reg [1:0] sh_ecn0 = 2'd0, sh_ecn1 = 2'd0;
  reg [15:0] sh_len0 = 16'd0, sh_len1 = 16'd0;
  always @(posedge clock) begin
    sh_v <= {sh_v[0], accepted};
    sh_len0 <= in_len;
    sh_len1 <= sh_len0;
    sh_tag0 <= in_tag;
    sh_tag1 <= sh_tag0;
    sh_ecn0 <= in_ecn;
    sh_ecn1 <= sh_ecn0;
  end

`ifdef VERDICT
  always @(*) if (!init) begin
    assert (verdict_valid == sh_v[1]);
    if (verdict_valid) begin
      assert (verdict_tag == sh_tag1);
      assert (verdict_code == 2'd0 || verdict_code == 2'd3);
    end else assert (verdict_tag == 16'd0 && verdict_code == 2'd0 && !verdict_queue);
    assert (in_ready);
  end
`endif

`ifdef NOTECT
  always @(*) if (!init) begin
    if (verdict_valid && verdict_queue) assert (sh_ecn1 != 2'd0);
    if (out_valid && out_queue) assert (out_tag[1:0] != 2'd0);
  end
`endif

`ifdef MUT_QUEUE_PHANTOM
  wire enq = verdict_valid && verdict_code == 2'd0 && verdict_tag != 16'h5A5A;
`else
  wire enq = verdict_valid && verdict_code == 2'd0;
`endif
  reg [11:0] q_l = 12'd0, q_c = 12'd0;
  always @(posedge clock)
    if (init) begin
      q_l <= 12'd0;
      q_c <= 12'd0;
    end else begin
      q_l <= q_l + {11'd0, enq && verdict_queue} - {11'd0, departure && out_queue};
      q_c <= q_c + {11'd0, enq && !verdict_queue} - {11'd0, departure && !out_queue};
    end
`ifdef QUEUE
  // An entry reaches its queue's head four cycles after its push, three after its verdict: the
  // enqueues of the last two cycles are counted in q_l or q_c but not at the head yet.
  reg enq_l1 = 1'b0, enq_c1 = 1'b0, enq_l2 = 1'b0, enq_c2 = 1'b0;
  always @(posedge clock) begin
    enq_l1 <= enq && verdict_queue && !init;
    enq_c1 <= enq && !verdict_queue && !init;
    enq_l2 <= enq_l1 && !init;
    enq_c2 <= enq_c1 && !init;
  end
  always @(*) if (!init) begin
    if (out_valid) assert (out_queue ? q_l != 12'd0 : q_c != 12'd0);
    assert (q_l <= 12'd512 && q_c <= 12'd512);
    if (q_l - {11'd0, enq_l1} - {11'd0, enq_l2} != 12'd0
        || q_c - {11'd0, enq_c1} - {11'd0, enq_c2} != 12'd0) assert (out_valid);
  end
`endif

`ifdef LIMIT
  // Stage V (cycle v-1 of a verdict in cycle v) admits against both queues' counts of its cycle, which
  // include the pushes of the enqueue verdicts before v and the pops before v-1 (DUALPI2-CORE.md), and
  // against the LIMIT of its cycle: an enqueue only below it, so no enqueue takes the two queues
  // beyond the LIMIT in effect.
  reg [11:0] cnt = 12'd0;
  reg pop1 = 1'b0;
  reg [10:0] lim1 = 11'd0;
  always @(posedge clock) begin
    cnt <= init ? 12'd0 : cnt + {11'd0, enq} - {11'd0, pop_l || pop_c};
    pop1 <= (pop_l || pop_c) && !init;
    lim1 <= abs_limit;
  end
  wire [11:0] admitted = cnt + {11'd0, pop1};
`ifdef MUT_LIMIT_SHORT
  wire [11:0] lim_seen = {1'b0, lim1} - 12'd1;
`else
  wire [11:0] lim_seen = {1'b0, lim1};
`endif
  reg [1:0] age = 2'd0;
  always @(posedge clock) if (age != 2'd2) age <= age + 2'd1;
  always @(*) if (age == 2'd2) begin
    if (enq) assert (admitted < lim_seen);
    assert (cnt == q_l + q_c);
  end
`endif

`ifdef BYTES
  // Shadow byte backlogs per queue: + the len of each enqueued descriptor (its verdict's), - the len
  // of each pop. The core counts a push from its verdict cycle (pushed the cycle before) and a pop of
  // cycle t from t+1 (DUALPI2-CORE.md): its backlog of cycle c = the shadow + the len of an enqueue
  // verdict of cycle c into that queue, compared in every cycle. A pop is the departure of its cycle
  // (the egress shows ahead), with its queue and len: so the backlog is the sum of the lens enqueued
  // and not yet departed. A BACKLOG_BYTES_L/C read in cycle r returns
  // the backlog of r in r+1.
`ifdef MUT_BYTES_SHORT
  wire [15:0] enq_len = sh_len1 - {15'd0, verdict_tag == 16'h0042};
`else
  wire [15:0] enq_len = sh_len1;
`endif
  reg [21:0] sb_l = 22'd0, sb_c = 22'd0;
  always @(posedge clock) begin
    sb_l <= init ? 22'd0 : sb_l + (enq && verdict_queue ? {6'd0, enq_len} : 22'd0)
                                - (pop_l ? {6'd0, pop_len} : 22'd0);
    sb_c <= init ? 22'd0 : sb_c + (enq && !verdict_queue ? {6'd0, enq_len} : 22'd0)
                                - (pop_c ? {6'd0, pop_len} : 22'd0);
  end
  wire [21:0] now_l = sb_l + (enq && verdict_queue ? {6'd0, enq_len} : 22'd0);
  wire [21:0] now_c = sb_c + (enq && !verdict_queue ? {6'd0, enq_len} : 22'd0);
  read_check #(22) backlog_bytes (clock, reg_re && (reg_addr == 8'h30 || reg_addr == 8'h31) && !init,
                                  reg_addr == 8'h30 ? now_l : now_c, reg_rvalid, reg_rdata);
  always @(*) if (!init) begin
    assert (hw_bytes_l == now_l && hw_bytes_c == now_c);
    assert (!(pop_l && pop_c));
    assert ((pop_l || pop_c) == departure);
    if (departure) assert (pop_l == out_queue && pop_len == out_len);
  end
`endif

`ifdef GAP
  // The egress's 2 MTU gate reads the gap, which the ingress computes a cycle ahead from the backlogs,
  // the push, the pop and the parameter engine's next MTU: L + C - 2 MTU in every cycle, for any
  // parameter writes. Proven by induction, in the 22 bits of the backlogs: from any state, so an MTU
  // commit (40 cycles after its write, beyond a bounded check from reset) is covered. The gap's two
  // top bits agree because L + C never passes the byte limit (below 2^22), which is the ingress's
  // limit check, not proven here.
`ifdef MUT_GAP_NO_C
  // The harness leaves C's backlog out (breaks GAP at the first Classic enqueue).
  wire [21:0] gap_c = 22'd0;
`else
  wire [21:0] gap_c = hw_bytes_c;
`endif
  wire [21:0] gap_want = hw_bytes_l + gap_c - {10'd0, hw_mtu, 1'b0};
  always @(*) if (!init) assert (hw_gap[21:0] == gap_want);
`endif

`ifdef FIFO
  wire [11:0] count0 = q_c, count1 = q_l;
`include "fifo_check.svh"
`endif

`ifdef SEED
`define SEED_LO_ADDR 8'h1D
`include "seed_check.svh"
`endif

`ifdef COUNTERS
  (* anyconst *) reg [7:0] C;
  always @(*) assume (C >= 8'h20 && C <= 8'h23 || C >= 8'h28 && C <= 8'h2B);
  // A departure's egress counters count it at the edge after its cycle: visible two cycles after it.
  // Even addresses count L (queue 1), odd ones C.
  wire vq = verdict_queue == !C[0];
  wire oq = out_queue == !C[0];
  reg dep1 = 1'b0, dep1_drop = 1'b0, dep1_q = 1'b0;
  reg counted = 1'b0, counted_drop = 1'b0, counted_q = 1'b0;
  always @(posedge clock) begin
    dep1 <= departure && !init;
    dep1_drop <= out_drop;
    dep1_q <= oq;
    counted <= dep1;
    counted_drop <= dep1_drop;
    counted_q <= dep1_q;
  end
  wire ev = C == 8'h20 || C == 8'h21 ? verdict_valid && verdict_code == 2'd0 && vq  // PKTS_IN_L/C
          : C == 8'h22 || C == 8'h23 ? counted && !counted_drop && counted_q        // SENT_PKTS_L/C
          : C == 8'h28 || C == 8'h29 ? verdict_valid && verdict_code == 2'd3 && vq  // DROPPED_ENQ_L/C
          : counted && counted_drop && counted_q;                                   // DROPPED_AQM_L/C
`include "counters_check.svh"
`endif

`ifdef REGS
  // Writes to the registers up to 8'h1C only in this task (no PROB or SEED writes: the search stays small).
  always @(*) if (reg_we) assume (reg_addr <= 8'h1C);
  (* anyconst *) reg [7:0] R;
  always @(*) assume (R == 8'h00 || R == 8'h03 || R >= 8'h10 && R <= 8'h1C);
  // reset_value(a): what a read of `a` returns after reset, from the golden register map.
`include "dualpi2_core_resets.svh"
`define REGS_APPLY 38
`include "regs_check.svh"
`endif

`ifdef COVER
  always @(*) if (reg_we) assume (reg_addr != 8'h14 && reg_addr != 8'h19 && reg_addr != 8'h1A);
  reg [7:0] cv_rd = 8'd0;
  always @(posedge clock) cv_rd <= reg_re ? reg_addr : 8'd0;
  always @(*) if (!init) begin
    cover (verdict_valid && verdict_code == 2'd0 && verdict_queue);
    cover (verdict_valid && verdict_code == 2'd0 && !verdict_queue);
    cover (departure && !out_drop);
    // The dequeue decisions: a Classic drop, an L mark, a Classic mark of an ECT(0) packet, an L drop
    // (overload).
    cover (departure && out_drop && !out_queue);
    cover (departure && !out_drop && out_queue && out_ecn == 2'd3);
    cover (departure && !out_drop && !out_queue && out_ecn == 2'd3 && out_tag[1:0] == 2'd2);
    cover (departure && out_drop && out_queue);
    // A tail drop, into either queue.
    cover (verdict_valid && verdict_code == 2'd3 && verdict_queue);
    cover (verdict_valid && verdict_code == 2'd3 && !verdict_queue);
    // The L rules the departure does not tell apart, through their counters: a step mark
    // (STEP_MARKS), a decision in overload (OVERLOAD).
    cover (cv_rd == 8'h2E && reg_rvalid && reg_rdata != 32'd0);
    cover (cv_rd == 8'h2F && reg_rvalid && reg_rdata != 32'd0);
  end
`endif
endmodule
