// Formal harness of DualPI2's PI2 controller (hdl/src/dualpi2/controller.rs), `dualpi2_core$ctrl` of
// the emitted core, alone, with dualpi2_ctrl_props.ys's preparation:
//   - the multiplier's serial output (`mul$delta`: bit i of delta = alpha_i d1 + beta_i d2 in step
//     i + 2 of each Mul pass) is cut and driven by the harness: delta is any 64-bit value within the
//     multiplier's range (|delta| < 2^62, see below), the same in Mul2 as in Mul1 (the multiplier runs
//     twice on the same snapshot). What is proven is everything
//     around the multiplier, for every delta; the products are the conformance tests';
//   - every register starts free: the proof holds from any state that satisfies the idle invariants
//     assumed at step 0 (no pass running or starting, the working copies of p' and last_qdelay equal
//     to prob and last_qdelay, armed by a reset); everything else is arbitrary.
//
// Assumptions: no reset; no counter clear (UPDATES' clear is the core COUNTERS proof's); prob_we only
// while idle (the register file rejects PROB writes while busy).
//
// Property groups (one SBY task each, bounded model checking deep enough for a whole job):
//   UPDATE     (no register writes, no recompute pending) every update, UPDATE_CYCLES
//              busy cycles, ends with spec/dualpi2.md's steps on the harness's delta: qdelay = the
//              older valid head's age at the scheduled time (an empty queue or a negative age counts
//              0), p' + delta / 64 (truncating toward zero) saturated to [0, MAX_PROB], capped at the
//              cap input without drop_overload; kp = k x p' (k = 0 or a power of two), overload; last_qdelay =
//              qdelay; UPDATES + 1; next_update advanced by tupdate from its old value (or now +
//              the committed interval on a TUPDATE commit); prob changes at a commit only.
//              Saturation stated on its own too: delta >= 0 never lowers p' (but by the cap), delta
//              <= 0 never raises it
//   RECOMPUTE  (PROB writes and K commits, updates allowed) a PROB write or a K commit runs
//              RECOMPUTE_CYCLES busy cycles and commits p' = the written value (a K commit: p'
//              unchanged), kp = k x p' with the job's k (k = 0 or a power of two), overload; last_qdelay, UPDATES and next_update
//              unchanged
//   REACH_*    (REACH beside it; no register writes, as UPDATE) one branch of an update: HEAD_L,
//              HEAD_C, HEAD_NONE (the head qdelay comes from), SAT_LO, SAT_HI, CAP (how Kp rewrites
//              p'), taken at Kp's start, or OVERLOAD at the commit. The harness asserts that it is
//              never taken; scripts/prove's reach mode wants that check to fail (the branch reached)
//
// Mutations: MUT_WRAP (the harness's reference wraps p' + delta / 64 instead of saturating: breaks
// UPDATE), MUT_WRITE_LOST (the harness sees prob's bit 0 flipped when a write commits: breaks
// RECOMPUTE).
module dualpi2_ctrl_props (
    input wire clock,
    input wire [63:0] now,
    input wire hv_l,
    input wire [39:0] ts_l,
    input wire hv_c,
    input wire [39:0] ts_c,
    input wire [29:0] target_ns,
    input wire [29:0] tupdate_ns,
    input wire [20:0] alpha_i,
    input wire [20:0] beta_i,
    input wire drop_overload,
    input wire [7:0] k,
    input wire [31:0] cap,
    input wire prob_we,
    input wire [31:0] prob_wdata,
    input wire k_commit,
    input wire tupdate_commit,
    input wire [29:0] commit_ns,
    input wire clear_counters,
    input wire delta_bit
);
`include "dualpi2_ctrl_consts.svh"
  wire [31:0] prob, pn, updates;
  wire [39:0] kp, last_qdelay, next_update, lsh;
  wire overload, busy, pending;
  wire s_age, s_sel, s_mul1, s_mul2, s_kp, s_com, into_mul, into_kp, armed, dirty, upd;
  wire [6:0] bi;
  wire use_l, use_c;
  wire [1:0] mode;
  \dualpi2_core$ctrl dut (
      .clock(clock),
      .rst(1'b0),
      .now40(now[39:0]),
      .hv_l(hv_l),
      .ts_l(ts_l),
      .hv_c(hv_c),
      .ts_c(ts_c),
      .target_ns(target_ns),
      .tupdate_ns(tupdate_ns),
      .alpha_i(alpha_i),
      .beta_i(beta_i),
      .drop_overload(drop_overload),
      .k(k),
      .cap(cap),
      .prob_we(prob_we),
      .prob_wdata(prob_wdata),
      .k_commit(k_commit),
      .tupdate_commit(tupdate_commit),
      .commit_ns(commit_ns),
      .clear_counters(clear_counters),
      .prob(prob),
      .kp(kp),
      .overload(overload),
      .last_qdelay(last_qdelay),
      .next_update(next_update),
      .updates(updates),
      .busy(busy),
      .pending(pending),
      .\mul$delta (delta_bit),
      .\s_age$q (s_age),
      .\s_sel$q (s_sel),
      .\s_mul1$q (s_mul1),
      .\s_mul2$q (s_mul2),
      .\s_kp$q (s_kp),
      .\s_com$q (s_com),
      .\into_mul$q (into_mul),
      .\into_kp$q (into_kp),
      .\bi$q (bi),
      .\pn$q (pn),
      .\lsh$q (lsh),
      .\armed$q (armed),
      .\dirty$q (dirty),
      .\upd$q (upd),
      .\use_l$q (use_l),
      .\use_c$q (use_c),
      .\mode$q (mode)
  );

  reg init = 1'b1;
  always @(posedge clock) init <= 1'b0;
  // The idle invariants, at step 0 only.
  always @(*) if (init) begin
    assume (!busy && !s_age && !s_sel && !s_mul1 && !s_mul2 && !s_kp && !s_com);
    assume (!into_mul && !into_kp);
    assume (pn == prob && lsh == last_qdelay && armed);
  end
  always @(*) begin
    assume (!clear_counters);
    if (busy) assume (!prob_we);
  end
`include "ctrl_job.svh"
`ifdef JOBS_ARE_UPDATES
  always @(*) begin
    assume (!prob_we && !k_commit);
    if (init) assume (!dirty);
  end
`endif

  // ---- the inputs of the cycle before, and the job's snapshot (ctrl_job.svh: start, commit, cycles)
  reg p_we = 1'b0, p_hvl = 1'b0, p_hvc = 1'b0, p_dol = 1'b0, p_tcommit = 1'b0;
  reg [63:0] p_now = 64'd0;
  reg [39:0] p_tsl = 40'd0, p_tsc = 40'd0, p_next = 40'd0, p_last = 40'd0;
  reg [29:0] p_tupdate = 30'd0, p_commit_ns = 30'd0;
  reg [7:0] p_k = 8'd0;
  reg [31:0] p_cap = 32'd0, p_prob = 32'd0, p_wdata = 32'd0, p_updates = 32'd0;
  always @(posedge clock) begin
    p_we <= prob_we;
    p_hvl <= hv_l;
    p_hvc <= hv_c;
    p_dol <= drop_overload;
    p_tcommit <= tupdate_commit;
    p_now <= now;
    p_tsl <= ts_l;
    p_tsc <= ts_c;
    p_next <= next_update;
    p_last <= last_qdelay;
    p_tupdate <= tupdate_ns;
    p_commit_ns <= commit_ns;
    p_k <= k;
    p_cap <= cap;
    p_prob <= prob;
    p_wdata <= prob_wdata;
    p_updates <= updates;
  end
  reg s_hvl = 1'b0, s_hvc = 1'b0, s_dol = 1'b0, s_we = 1'b0;
  reg [39:0] s_at = 40'd0, s_tsl = 40'd0, s_tsc = 40'd0, s_last = 40'd0, s_next = 40'd0;
  reg [7:0] s_k = 8'd0;
  reg [31:0] s_cap = 32'd0, s_prob = 32'd0, s_wdata = 32'd0, s_updates = 32'd0;
  always @(posedge clock) begin
    if (start) begin
      s_at <= p_next;
      s_tsl <= p_tsl;
      s_tsc <= p_tsc;
      s_hvl <= p_hvl;
      s_hvc <= p_hvc;
      s_dol <= p_dol;
      s_k <= p_k;
      s_cap <= p_cap;
      s_last <= p_last;
      s_prob <= p_prob;
      s_we <= p_we;
      s_wdata <= p_wdata;
      s_updates <= p_updates;
      s_next <= next_update;
    end
  end
  wire [31:0] job_prob = s_we ? s_wdata : s_prob;

  // The multiplier's range: qdelay < 2^39, target < 2^30 and last_qdelay < 2^40 make |d1|, |d2| <
  // 2^40, and the gains are below 2^21, so |delta| < 2^62: bits 63 and 62 are equal. (Without this the
  // check finds delta = 0x7FFFFFFCBFF3FEE0, whose p' + delta / 64 overflows the serial sum's 58 bits
  // and commits 0: a delta no input can produce.)
  always @(*) if (s_mul1 && bi == 7'd65) assume (delta_bit == dl[62]);

  // prob moves only at a commit.
  always @(*) if (!init && !commit) assert (prob == p_prob);

  // kp = k x p' and the overload flag, after any job: for k = 0 and every power of two (RFC 9332's
  // k = 2 among them). A general k x p' against the serial shift-and-add ran past 2 minutes at the
  // commit step (Yices and ABC alike); the conformance tests compare every k.
  reg [39:0] kp_ref;
  reg k_exact;
  always @(*) begin
    k_exact = 1'b1;
    case (s_k)
      8'd0: kp_ref = 40'd0;
      8'd1: kp_ref = {8'd0, prob};
      8'd2: kp_ref = {7'd0, prob, 1'd0};
      8'd4: kp_ref = {6'd0, prob, 2'd0};
      8'd8: kp_ref = {5'd0, prob, 3'd0};
      8'd16: kp_ref = {4'd0, prob, 4'd0};
      8'd32: kp_ref = {3'd0, prob, 5'd0};
      8'd64: kp_ref = {2'd0, prob, 6'd0};
      8'd128: kp_ref = {1'd0, prob, 7'd0};
      default: begin
        kp_ref = 40'd0;
        k_exact = 1'b0;
      end
    endcase
  end
  always @(*) if (commit && started && k_exact) begin
    assert (kp == kp_ref);
    assert (overload == (kp_ref[39:32] != 8'd0));
  end

`ifdef REACH
  // The controller's branches, each reached by an update from an idle state: a reach job asserts that
  // its branch is never taken (at the start of Kp, where the head choice and the rewrite mode are
  // settled, or at the commit), and the check failing (with its trace) is the branch reached
  // (scripts/prove's reach mode). The UPDATE group proves each of them right.
  reg p_skp = 1'b0;
  always @(posedge clock) p_skp <= s_kp;
  wire at_kp = s_kp && !p_skp && upd && started;
`ifdef REACH_HEAD_L
  always @(*) if (at_kp) assert (!use_l);  // qdelay from the L head (older, or C empty)
`elsif REACH_HEAD_C
  always @(*) if (at_kp) assert (!use_c);  // qdelay from the C head
`elsif REACH_HEAD_NONE
  always @(*) if (at_kp) assert (use_l || use_c);  // qdelay 0: no valid head
`elsif REACH_SAT_LO
  always @(*) if (at_kp) assert (mode != 2'd1);  // p' + delta / 64 saturated at 0
`elsif REACH_SAT_HI
  always @(*) if (at_kp) assert (mode != 2'd2);  // saturated at 100 %
`elsif REACH_CAP
  always @(*) if (at_kp) assert (mode != 2'd3);  // capped at MAX / k (drop_overload off)
`elsif REACH_OVERLOAD
  always @(*) if (commit && started && upd) assert (!overload);  // k x p' > 100 %
`endif
`endif

`ifdef UPDATE
  // spec/dualpi2.md's update (golden/src/dualpi2/controller.rs), on the harness's delta.
  wire [39:0] raw_l = s_at - s_tsl, raw_c = s_at - s_tsc;
  wire vl = s_hvl && !raw_l[39], vc = s_hvc && !raw_c[39];
  wire [39:0] qdelay = vc && (!vl || raw_c > raw_l) ? raw_c : vl ? raw_l : 40'd0;
  // delta / 64 truncating toward zero: a negative delta is rounded up first.
  wire [63:0] dq = dl[63] ? dl + 64'd63 : dl;
  wire [63:0] step = {{6{dq[63]}}, dq[63:6]};
  wire signed [65:0] sum = $signed({34'd0, s_prob}) + $signed({{2{step[63]}}, step});
  wire over = sum > $signed({34'd0, MAX_PROB[31:0]});
`ifdef MUT_WRAP
  wire [31:0] p3 = sum[31:0];
`else
  wire [31:0] p3 = over ? MAX_PROB[31:0] : sum[65] ? 32'd0 : sum[31:0];
`endif
  wire capped = !s_dol && p3 > s_cap;
  wire [31:0] p4 = capped ? s_cap : p3;

  always @(*) if (start) begin
    if (p_tcommit) assert (next_update == p_now[39:0] + {10'd0, p_commit_ns});
    else assert (next_update == p_next + {10'd0, p_tupdate});
  end
  always @(*) if (commit && started) begin
    // The results are visible UPDATE_CYCLES after the firing cycle (hdl/DUALPI2-CORE.md), the last
    // idle cycle before busy.
    assert (cycles + 10'd1 == UPDATE_CYCLES[9:0]);
    assert (prob == p4);
    assert (last_qdelay == qdelay);
    assert (updates == s_updates + 32'd1);
    // Saturation, not wrapping: the direction of the step is the direction of p' (the cap only lowers).
    if (!dl[63] && !capped) assert (prob >= s_prob);
    if (dl[63] || dl == 64'd0) assert (prob <= s_prob);
  end
`endif

`ifdef RECOMPUTE
`ifdef MUT_WRITE_LOST
  wire [31:0] prob_seen = prob ^ {31'd0, s_we};
`else
  wire [31:0] prob_seen = prob;
`endif
  always @(*) if (commit && started && !upd) begin
    assert (cycles + 10'd1 == RECOMPUTE_CYCLES[9:0]);
    assert (prob_seen == job_prob);
    assert (last_qdelay == s_last);
    assert (updates == s_updates);
  end
`endif
endmodule
