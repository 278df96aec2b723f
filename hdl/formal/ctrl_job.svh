// The job machinery of a controller harness (pie_ctrl_props.sv, dualpi2_ctrl_props.sv): included
// after the harness's controller instance, `init` and its idle invariants. It needs the controller's
// `busy`, its multiplier's cut output `delta_bit` and the pass state `s_mul1`, `s_mul2`, `bi`.
//
// - JOBS_ARE_UPDATES (defined here for the UPDATE group and the reach jobs, REACH; the harness adds
//   its own no-write assumptions under it): the update starts in step 1 (busy from step 1) and no
//   other job starts. A bounded check then meets each pass
//   boundary and the commit in one step, not in every step from the first one on (each such step costs
//   minutes with a solver). No generality is lost: step 0 is any idle state, so a job that starts later
//   starts from a state that step 0 may already be.
// - start (busy rises) and commit (busy falls) of a job, `started` (a job started within the check,
//   not before step 0), and `cycles`, the job's busy cycles counted from 1 in its first busy cycle.
// - delta: bit i comes out of the multiplier in step i + 2 of each Mul pass; the harness records it in
//   Mul1 (`dl`) and gives the same bits again in Mul2 (the multiplier runs twice on one snapshot).
`ifdef UPDATE
`define JOBS_ARE_UPDATES
`elsif REACH
`define JOBS_ARE_UPDATES
`endif
  reg p_busy = 1'b0;
  always @(posedge clock) p_busy <= busy;
  wire start = busy && !p_busy && !init;
  wire commit = p_busy && !busy && !init;
`ifdef JOBS_ARE_UPDATES
  reg [1:0] j_step = 2'd0;
  always @(posedge clock) if (j_step != 2'd2) j_step <= j_step + 2'd1;
  always @(*) begin
    if (j_step == 2'd1) assume (busy);
    if (j_step == 2'd2) assume (!start);
  end
`endif
  reg started = 1'b0;
  reg [9:0] cycles = 10'd0;
  always @(posedge clock)
    if (start) begin
      started <= 1'b1;
      cycles <= 10'd1;
    end else if (busy) cycles <= cycles + 10'd1;

  reg [63:0] dl = 64'd0;
  wire [6:0] bit_i = bi - 7'd2;
  always @(posedge clock) if (s_mul1 && bi >= 7'd2 && bi <= 7'd65) dl[bit_i[5:0]] <= delta_bit;
  always @(*) if (s_mul2 && bi >= 7'd2 && bi <= 7'd65) assume (delta_bit == dl[bit_i[5:0]]);
