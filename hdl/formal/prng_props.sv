// Formal harness of the random generator (hdl/src/prng.rs), emitted alone as `prng_block`.
//
// Assumptions: reset in the first cycle; a seed load only with a non-zero seed (the register files
// reject {SEED_HI, staged SEED_LO} = 0). take, seed_we, seed and later resets are free.
//
// Properties (one SBY task each, k-induction):
//   NONZERO  the state is never zero after the first reset (xorshift maps non-zero to non-zero)
//   STEP     word = xorshift64(13, 7, 17) of the state; the state moves only on take (to word), a seed
//            load (to seed, winning over take) or a reset (to DEFAULT_SEED)
//
// Mutations: MUT_ZERO_SEED drops the seed assumption (breaks NONZERO); MUT_STUCK_WORD makes the
// harness's reference step use a shift of 12 instead of 13 (breaks STEP).
module prng_props (
    input wire clock,
    input wire rst,
    input wire take,
    input wire seed_we,
    input wire [63:0] seed
);
  wire [63:0] word, state;
  prng_block dut (
      .clock(clock),
      .rst(rst),
      .take(take),
      .seed_we(seed_we),
      .seed(seed),
      .word(word),
      .state(state)
  );
  reg init = 1'b1;
  always @(posedge clock) init <= 1'b0;
  always @(*) if (init) assume (rst);
`ifndef MUT_ZERO_SEED
  always @(*) if (seed_we) assume (seed != 64'd0);
`endif

`ifdef NONZERO
  always @(*) if (!init) assert (state != 64'd0);
`endif

`ifdef STEP
`ifdef MUT_STUCK_WORD
  localparam integer S1 = 12;
`else
  localparam integer S1 = 13;
`endif
  wire [63:0] x1 = state ^ (state << S1);
  wire [63:0] x2 = x1 ^ (x1 >> 7);
  wire [63:0] ref_word = x2 ^ (x2 << 17);
  reg [63:0] p_state = 64'd0, p_word = 64'd0, p_seed = 64'd0;
  reg p_take = 1'b0, p_we = 1'b0, p_rst = 1'b0, p_init = 1'b1;
  always @(posedge clock) begin
    p_state <= state;
    p_word <= word;
    p_seed <= seed;
    p_take <= take;
    p_we <= seed_we;
    p_rst <= rst;
    p_init <= init;
  end
  always @(*) begin
    assert (word == ref_word);
    if (!init && !p_init) begin
      if (p_rst) assert (state == 64'h9E3779B97F4A7C15);
      else if (p_we) assert (state == p_seed);
      else if (p_take) assert (state == p_word);
      else assert (state == p_state);
    end
  end
`endif
endmodule
