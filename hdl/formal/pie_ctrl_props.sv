// Formal harness of PIE's PI controller (hdl/src/pie/controller.rs), `pie_core$ctrl` of the emitted
// core, alone, with pie_ctrl_props.ys's preparation:
//   - the multiplier's serial output (`mul$delta`: bit i of delta = alpha_i d1 + beta_i d2 in step
//     i + 2 of each Mul pass) is cut and driven by the harness: delta is any 64-bit value, the same in
//     Mul2 as in Mul1 (the multiplier runs twice on the same snapshot). What is proven is everything
//     around the multiplier, for every delta; the products themselves are the conformance tests' (a
//     serial x parallel multiplier against a reference product is beyond a SAT solver at 34 x 64 bits);
//   - every register starts free: the proof holds from any state that satisfies the idle invariants
//     assumed at step 0 (no pass running, no pass start pending and no burst reset ahead, the working
//     copy of prob equal to prob, armed by a reset); everything else (qdelay_old, next_update, the
//     flags, every datapath register the passes reset or overwrite) is arbitrary.
//
// Assumptions: no reset (the reset values are the core REGS proof's); target_half = target / 2 (the
// core's wiring); MTU within its register range, 64 ... 2047; prob_we only while idle (the register
// file rejects PROB writes while busy).
//
// Property groups (one SBY task each, bounded model checking deep enough for a whole job):
//   UPDATE     (no register writes, no recompute pending) every update, UPDATE_CYCLES busy cycles, ends
//              with spec/pie.md's steps 5-9 applied to the delta the harness gave: the 2 % cap, the
//              boost above 250 ms, prob + delta saturated to [0, MAX_PROB], the 63/64 decay, the burst
//              reset strobe in the commit cycle and only then; qdelay_old = the snapshot's qdelay;
//              prob_lt20 / prob_le10 match the new prob; prob changes at a commit only; next_update =
//              now + tupdate of the firing cycle. Saturation stated on its own too: a step >= 0
//              never lowers prob (but by the decay), a step <= 0 never raises it.
//   RECOMPUTE  (PROB and MTU writes, updates allowed) a PROB write or an MTU change runs
//              RECOMPUTE_CYCLES busy cycles and commits prob = the written value (an MTU change: prob
//              unchanged), the two flags; qdelay_old and next_update unchanged (ppb = prob / MTU:
//              see below)
//   REACH_*    (REACH beside it; no register writes, as UPDATE) one branch of an update, taken at
//              Decay's start: CAP (step 5), BOOST (step 6), SAT_HI / SAT_LO (step 7 at 100 % / 0),
//              DECAY (step 8 on a non-zero prob), BURST (step 9). The harness asserts that it is
//              never taken; scripts/prove's reach mode wants that check to fail (the branch reached)
//
// Mutations: MUT_WRAP (the harness's reference wraps prob + delta instead of saturating: breaks
// UPDATE), MUT_WRITE_LOST (the harness sees prob's bit 0 flipped when a write commits: breaks
// RECOMPUTE).
module pie_ctrl_props (
    input wire clock,
    input wire [63:0] now,
    input wire [33:0] qdelay,
    input wire [31:0] backlog,
    input wire [23:0] target,
    input wire [5:0] alpha,
    input wire [5:0] beta,
    input wire [31:0] tupdate,
    input wire [15:0] mtu,
    input wire prob_we,
    input wire [55:0] prob_wdata,
    input wire mtu_we,
    input wire delta_bit
);
`include "pie_ctrl_consts.svh"
  wire [55:0] prob, ppb, pw;
  wire prob_lt20, prob_le10, busy, pending, burst_reset;
  wire [33:0] qdelay_old;
  wire [39:0] next_update;
  wire s_scale, s_mul1, s_mul2, s_dec, s_div, s_com, into_mul, into_dec, into_div, armed, dirty, upd;
  wire br;
  wire neg, over_hw, dec, cap_hw, boost_hw;
  wire [6:0] bi;
  \pie_core$ctrl dut (
      .clock(clock),
      .rst(1'b0),
      .now(now),
      .qdelay(qdelay),
      .backlog(backlog),
      .target(target),
      .target_half(target >> 1),
      .alpha(alpha),
      .beta(beta),
      .tupdate(tupdate),
      .mtu(mtu),
      .prob_we(prob_we),
      .prob_wdata(prob_wdata),
      .mtu_we(mtu_we),
      .prob(prob),
      .ppb(ppb),
      .prob_lt20(prob_lt20),
      .prob_le10(prob_le10),
      .qdelay_old(qdelay_old),
      .next_update(next_update),
      .busy(busy),
      .pending(pending),
      .burst_reset(burst_reset),
      .\mul$delta (delta_bit),
      .\s_scale$q (s_scale),
      .\s_mul1$q (s_mul1),
      .\s_mul2$q (s_mul2),
      .\s_dec$q (s_dec),
      .\s_div$q (s_div),
      .\s_com$q (s_com),
      .\into_mul$q (into_mul),
      .\into_dec$q (into_dec),
      .\into_div$q (into_div),
      .\bi$q (bi),
      .\pw$q (pw),
      .\armed$q (armed),
      .\dirty$q (dirty),
      .\upd$q (upd),
      .\br$q (br),
      .\neg$q (neg),
      .\over$q (over_hw),
      .\dec$q (dec),
      .\cap$q (cap_hw),
      .\boost$q (boost_hw)
  );

  reg init = 1'b1;
  always @(posedge clock) init <= 1'b0;
  // The idle invariants, at step 0 only.
  always @(*) if (init) begin
    // (`br`, the burst reset a cycle ahead, is set only in Div's last step.)
    assume (!busy && !s_scale && !s_mul1 && !s_mul2 && !s_dec && !s_div && !s_com && !br);
    assume (!into_mul && !into_dec && !into_div);
    assume (pw == prob && armed);
  end
  always @(*) begin
    assume (mtu >= 16'd64 && mtu <= 16'd2047);
    if (busy) assume (!prob_we);
  end
`include "ctrl_job.svh"
`ifdef JOBS_ARE_UPDATES
  always @(*) begin
    assume (!prob_we && !mtu_we);
    if (init) assume (!dirty);
  end
`endif

  // ---- the inputs of the cycle before, and the job's snapshot (ctrl_job.svh: start, commit, cycles)
  reg p_burst = 1'b0, p_we = 1'b0;
  reg [63:0] p_now = 64'd0;
  reg [31:0] p_tupdate = 32'd0, p_backlog = 32'd0;
  reg [33:0] p_qdelay = 34'd0, p_qold = 34'd0;
  reg [23:0] p_target = 24'd0;
  reg [15:0] p_mtu = 16'd0;
  reg [55:0] p_prob = 56'd0, p_wdata = 56'd0;
  reg [39:0] p_next = 40'd0;
  always @(posedge clock) begin
    p_burst <= burst_reset;
    p_we <= prob_we;
    p_now <= now;
    p_tupdate <= tupdate;
    p_backlog <= backlog;
    p_qdelay <= qdelay;
    p_qold <= qdelay_old;
    p_target <= target;
    p_mtu <= mtu;
    p_prob <= prob;
    p_wdata <= prob_wdata;
    p_next <= next_update;
  end
  reg [33:0] s_qd = 34'd0, s_qold = 34'd0;
  reg [23:0] s_th = 24'd0;
  reg s_bnz = 1'b0, s_we = 1'b0;
  reg [15:0] s_mtu = 16'd0;
  reg [55:0] s_prob = 56'd0, s_wdata = 56'd0;
  reg [39:0] s_next = 40'd0;
  always @(posedge clock) begin
    if (start) begin
      s_qd <= p_qdelay;
      s_qold <= p_qold;
      s_th <= p_target >> 1;
      s_bnz <= p_backlog != 32'd0;
      s_mtu <= p_mtu;
      s_prob <= p_prob;
      s_we <= p_we;
      s_wdata <= p_wdata;
      s_next <= next_update;
    end
  end
  wire [55:0] job_prob = s_we ? s_wdata : s_prob;

  // ---- the flags of a committed prob
  always @(*) if (commit && started) begin
    assert (prob_lt20 == (prob < PROB_20PCT[55:0]));
    assert (prob_le10 == (prob <= PROB_10PCT[55:0]));
  end
  // prob moves only at a commit; burst_reset only in a job's last busy cycle.
  always @(*) if (!init) begin
    if (!commit) assert (prob == p_prob);
    if (p_burst) assert (commit);
  end

  // The hardware's state at two pass boundaries, checked there and recorded, so that each check
  // relates one pass to the spec's arithmetic (one check of prob at the commit against steps 5-9
  // whole was beyond ABC: 16 minutes on the commit step without an answer):
  //   Decay's first cycle: Mul2 has left prob + delta' in the working copy (bits 0-55) with its sign
  //     (`neg`) and whether it is above 100 % (`over`), and whether step 8 applies (`dec`): the
  //     saturated value must be step 7's, and `dec` step 8's condition;
  //   Div's first cycle: Decay has left the decayed value in the working copy (Div does not touch it);
  //   the commit: prob is that value.
  // Together: prob at the commit = p8.
  reg p_sdec = 1'b0, p_sdiv = 1'b0;
  always @(posedge clock) begin
    p_sdec <= s_dec;
    p_sdiv <= s_div;
  end
  wire at_dec = s_dec && !p_sdec && upd && started;
  wire at_div = s_div && !p_sdiv && upd && started;
  wire [55:0] p7_hw = over_hw ? MAX_PROB[55:0] : neg ? 56'd0 : pw;
  wire [55:0] p8_hw = dec ? p7_hw - (p7_hw >> 6) : p7_hw;
  wire qd_low = s_qd < {10'd0, s_th} && s_qold < {10'd0, s_th};
  reg [55:0] r_p8 = 56'd0, r_div = 56'd0;
  always @(posedge clock) begin
    if (at_dec) r_p8 <= p8_hw;
    if (at_div) r_div <= pw;
  end

`ifdef REACH
  // The controller's branches, each reached by an update from an idle state: a reach job asserts that
  // its branch is never taken at Decay's start, and the check failing (with its trace) is the branch
  // reached (scripts/prove's reach mode). The UPDATE group proves each of them right.
  always @(*) if (at_dec) begin
`ifdef REACH_CAP
    assert (!cap_hw);  // step 5: delta capped at 2 %
`elsif REACH_BOOST
    assert (!boost_hw);  // step 6: + 2 % above 250 ms
`elsif REACH_SAT_HI
    assert (!over_hw);  // step 7: saturated at 100 %
`elsif REACH_SAT_LO
    assert (!neg);  // step 7: saturated at 0
`elsif REACH_DECAY
    assert (!(dec && p7_hw != 56'd0));  // step 8: decay of a non-zero prob
`elsif REACH_BURST
    assert (!(qd_low && p8_hw == 56'd0));  // step 9: a new measurement cycle
`endif
  end
`endif

`ifdef UPDATE
  // spec/pie.md steps 5-9 (golden/src/pie/controller.rs), on the harness's delta.
  wire cap = $signed(dl) > $signed(PROB_2PCT) && {8'd0, s_prob} >= PROB_10PCT;
  wire [63:0] d5 = cap ? PROB_2PCT : dl;
  wire [63:0] d6 = s_qd > QDELAY_BOOST_TICKS[33:0] ? d5 + PROB_2PCT : d5;
  wire signed [65:0] sum = $signed({10'd0, s_prob}) + $signed({{2{d6[63]}}, d6});
  wire over = sum > $signed({2'd0, MAX_PROB});
`ifdef MUT_WRAP
  wire [55:0] p7 = sum[55:0];
`else
  wire [55:0] p7 = over ? MAX_PROB[55:0] : sum[65] ? 56'd0 : sum[55:0];
`endif
  wire decayed = s_qd == 34'd0 && s_qold == 34'd0 && !s_bnz && !over;

  always @(*) if (start) assert (next_update == p_now[39:0] + {8'd0, p_tupdate});
  always @(*) if (at_dec) begin
    assert (p7_hw == p7);
    assert (dec == decayed);
    // Saturation, not wrapping: the direction of the step is the direction of prob (step 7, before
    // the decay).
    if (!d6[63]) assert (p7_hw >= s_prob);
    if ($signed(d6) <= 0) assert (p7_hw <= s_prob);
  end
  always @(*) if (at_div) assert (pw == r_p8);
  always @(*) if (commit && started) begin
    // The commit is the UPDATE_CYCLES-th cycle after the firing cycle (hdl/PIE-CORE.md): the job is
    // busy for exactly that many cycles.
    assert (cycles == UPDATE_CYCLES[9:0]);
    assert (prob == r_div);
    assert (qdelay_old == s_qd);
    assert (p_burst == (qd_low && r_div == 56'd0));
    assert (next_update == s_next);
  end
`endif

`ifdef RECOMPUTE
  // The job of a commit: an update (upd) or a recompute (a PROB write, or an MTU change: the job's prob).
  // ppb = prob / MTU is not checked here: the quotient of a serial restoring divider against prob,
  // even as bounds (prob >> 11 <= ppb <= prob >> 6), ran past 5 minutes at the commit step with
  // Yices; the conformance tests compare it.
`ifdef MUT_WRITE_LOST
  wire [55:0] prob_seen = prob ^ {55'd0, s_we};
`else
  wire [55:0] prob_seen = prob;
`endif
  always @(*) if (commit && started && !upd) begin
    assert (cycles == RECOMPUTE_CYCLES[9:0]);
    assert (prob_seen == job_prob);
    assert (qdelay_old == s_qold);
    assert (next_update == s_next);
  end
`endif
endmodule
