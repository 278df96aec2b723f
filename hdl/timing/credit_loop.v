// DualPI2's WRR credit recurrence alone, in six forms, for measuring what one cycle of it costs on the
// iCE40 (scripts/recurrences). Each form registers its inputs (the queue heads' lengths and valid
// bits, the weight wc, the dequeue), keeps the credit in a register and registers its outputs, so
// that the only register-to-register paths are the recurrence's. The six give the same outputs
// (credit_loop_tb.v, run by hdl/tests/timing_models.rs); hdl/src/dualpi2/egress.rs has form E in the
// small form (form A before 2026-12-06) and, since 2026-12-08, form B2 in the fast form, each product
// in carry-save form and made from the queue's next entry a cycle ahead (hdl/DUALPI2-CORE.md). The pick: L while the credit is <= 0 or C is empty; a dequeue with both queues
// backlogged adds wc x len to the credit for an L packet and takes (100 - wc) x len off it for a C packet.

// w x len as the egress builds it: seven shifted partial products in a tree of adders.
module credit_wlen(input [6:0] w, input [15:0] len16, output [23:0] prod);
  wire [23:0] len = {8'd0, len16};
  assign prod = (((w[0] ? len : 24'd0) + (w[1] ? len << 1 : 24'd0))
              + ((w[2] ? len << 2 : 24'd0) + (w[3] ? len << 3 : 24'd0)))
              + (((w[4] ? len << 4 : 24'd0) + (w[5] ? len << 5 : 24'd0))
              + (w[6] ? len << 6 : 24'd0));
endmodule

// Form A (the core's until 2026-12-06): the pick, then the picked head's length and weight, then
// w x len, then the add.
module credit_loop_a(input clk, input [15:0] len_l_i, input [15:0] len_c_i, input hv_l_i,
                     input hv_c_i, input [6:0] wc_i, input deq_i, output reg [23:0] credit_o,
                     output reg pick_o);
  reg [15:0] len_l, len_c;
  reg hv_l, hv_c, deq;
  reg [6:0] wc;
  reg [23:0] credit;
  wire pick_l = hv_l & (~hv_c | credit[23] | ~(|credit));
  wire [6:0] w = pick_l ? wc : 7'd100 - wc;
  wire [23:0] prod;
  credit_wlen m(.w(w), .len16(pick_l ? len_l : len_c), .prod(prod));
  always @(posedge clk) begin
    {len_l, len_c, hv_l, hv_c, wc, deq} <= {len_l_i, len_c_i, hv_l_i, hv_c_i, wc_i, deq_i};
    if (deq & hv_l & hv_c) credit <= pick_l ? credit + prod : credit - prod;
    credit_o <= credit;
    pick_o <= pick_l;
  end
endmodule

// Form B: each queue's product from its own head, both candidate credits beside the pick, the pick
// choosing last.
module credit_loop_b(input clk, input [15:0] len_l_i, input [15:0] len_c_i, input hv_l_i,
                     input hv_c_i, input [6:0] wc_i, input deq_i, output reg [23:0] credit_o,
                     output reg pick_o);
  reg [15:0] len_l, len_c;
  reg hv_l, hv_c, deq;
  reg [6:0] wc, wl;
  reg [23:0] credit;
  wire pick_l = hv_l & (~hv_c | credit[23] | ~(|credit));
  wire [23:0] pl, pc;
  credit_wlen ml(.w(wc), .len16(len_l), .prod(pl));
  credit_wlen mc(.w(wl), .len16(len_c), .prod(pc));
  always @(posedge clk) begin
    {len_l, len_c, hv_l, hv_c, wc, deq} <= {len_l_i, len_c_i, hv_l_i, hv_c_i, wc_i, deq_i};
    wl <= 7'd100 - wc_i;
    if (deq & hv_l & hv_c) credit <= pick_l ? credit + pl : credit - pc;
    credit_o <= credit;
    pick_o <= pick_l;
  end
endmodule

// Form B2: as B, with each product in a register beside its head (a head that arrives one cycle
// before it is shown brings its product).
module credit_loop_b2(input clk, input [15:0] len_l_i, input [15:0] len_c_i, input hv_l_i,
                      input hv_c_i, input [6:0] wc_i, input deq_i, output reg [23:0] credit_o,
                      output reg pick_o);
  reg hv_l, hv_c, deq;
  reg [23:0] credit, pl, pc;
  wire pick_l = hv_l & (~hv_c | credit[23] | ~(|credit));
  wire [23:0] pl_d, pc_d;
  credit_wlen ml(.w(wc_i), .len16(len_l_i), .prod(pl_d));
  credit_wlen mc(.w(7'd100 - wc_i), .len16(len_c_i), .prod(pc_d));
  always @(posedge clk) begin
    {hv_l, hv_c, deq, pl, pc} <= {hv_l_i, hv_c_i, deq_i, pl_d, pc_d};
    if (deq & hv_l & hv_c) credit <= pick_l ? credit + pl : credit - pc;
    credit_o <= credit;
    pick_o <= pick_l;
  end
endmodule

// Form C: as B, with "the credit is above 0" in a register beside the credit (from the chosen
// candidate), so the pick is one LUT from flip-flops.
module credit_loop_c(input clk, input [15:0] len_l_i, input [15:0] len_c_i, input hv_l_i,
                     input hv_c_i, input [6:0] wc_i, input deq_i, output reg [23:0] credit_o,
                     output reg pick_o);
  reg [15:0] len_l, len_c;
  reg hv_l, hv_c, deq, gt0;
  reg [6:0] wc, wl;
  reg [23:0] credit;
  wire pick_l = hv_l & (~hv_c | ~gt0);
  wire [23:0] pl, pc;
  credit_wlen ml(.w(wc), .len16(len_l), .prod(pl));
  credit_wlen mc(.w(wl), .len16(len_c), .prod(pc));
  wire [23:0] up = credit + pl, down = credit - pc;
  always @(posedge clk) begin
    {len_l, len_c, hv_l, hv_c, wc, deq} <= {len_l_i, len_c_i, hv_l_i, hv_c_i, wc_i, deq_i};
    wl <= 7'd100 - wc_i;
    if (deq & hv_l & hv_c) begin
      credit <= pick_l ? up : down;
      gt0 <= pick_l ? ~up[23] & (|up) : ~down[23] & (|down);
    end
    credit_o <= credit;
    pick_o <= pick_l;
  end
endmodule

// a + b + c in one carry chain: {a, c} + {b, 1} is 2 (a + b + c) plus 1 - c in bit 0, and the
// first carry is c. ({b, c} gives the same sum, but a carry cell with c on both operands, on which
// nextpnr-ice40's router can livelock. Form D keeps such cells all the same: the bits a shift leaves
// 0 in two partial products are both ~0 = neg after the inversion, so their carry cells take neg
// twice, and its route still does not converge on seed 1.)
module credit_add3(input [23:0] a, input [23:0] b, input c, output [23:0] s);
  /* verilator lint_off UNUSEDSIGNAL */
  wire [24:0] t = {a, c} + {b, 1'b1};  // t[0] is ~c
  /* verilator lint_on UNUSEDSIGNAL */
  assign s = t[24:1];
endmodule

// Form D: as A, with the credit a leaf of w x len's adder tree, so that the loop has
// three adders instead of four: the pick chooses the weight, the length and the sign; for a C packet each partial
// product is inverted and each of the seven adders adds 1 (credit - sum(pp) = credit + sum(~pp) + 7).
module credit_loop_d(input clk, input [15:0] len_l_i, input [15:0] len_c_i, input hv_l_i,
                     input hv_c_i, input [6:0] wc_i, input deq_i, output reg [23:0] credit_o,
                     output reg pick_o);
  reg [15:0] len_l, len_c;
  reg hv_l, hv_c, deq;
  reg [6:0] wc;
  reg [23:0] credit;
  wire pick_l = hv_l & (~hv_c | credit[23] | ~(|credit));
  wire neg = ~pick_l;
  wire [6:0] w = pick_l ? wc : 7'd100 - wc;
  wire [23:0] len = {8'd0, pick_l ? len_l : len_c};
  wire [23:0] inv = {24{neg}};
  wire [23:0] p0 = (w[0] ? len : 24'd0) ^ inv, p1 = (w[1] ? len << 1 : 24'd0) ^ inv;
  wire [23:0] p2 = (w[2] ? len << 2 : 24'd0) ^ inv, p3 = (w[3] ? len << 3 : 24'd0) ^ inv;
  wire [23:0] p4 = (w[4] ? len << 4 : 24'd0) ^ inv, p5 = (w[5] ? len << 5 : 24'd0) ^ inv;
  wire [23:0] p6 = (w[6] ? len << 6 : 24'd0) ^ inv;
  wire [23:0] s01, s23, s45, s6c, s03, s4c, next;
  credit_add3 a01(.a(p0), .b(p1), .c(neg), .s(s01));
  credit_add3 a23(.a(p2), .b(p3), .c(neg), .s(s23));
  credit_add3 a45(.a(p4), .b(p5), .c(neg), .s(s45));
  credit_add3 a6c(.a(p6), .b(credit), .c(neg), .s(s6c));
  credit_add3 a03(.a(s01), .b(s23), .c(neg), .s(s03));
  credit_add3 a4c(.a(s45), .b(s6c), .c(neg), .s(s4c));
  credit_add3 all(.a(s03), .b(s4c), .c(neg), .s(next));
  always @(posedge clk) begin
    {len_l, len_c, hv_l, hv_c, wc, deq} <= {len_l_i, len_c_i, hv_l_i, hv_c_i, wc_i, deq_i};
    if (deq & hv_l & hv_c) credit <= next;
    credit_o <= credit;
    pick_o <= pick_l;
  end
endmodule

// Form E (the core's): as D, with the sign of the change on the credit instead of on the partial
// products: for a C packet the tree adds w x len to ~credit and inverts its sum, ~(~credit + w x len)
// = credit - w x len, so no adder takes a carry in (the seven of form D: nextpnr-ice40 0.4 did not
// route form D alone on seed 1, nor the DualPI2 card with it on seeds 2 and 3, in 600 s).
module credit_loop_e(input clk, input [15:0] len_l_i, input [15:0] len_c_i, input hv_l_i,
                     input hv_c_i, input [6:0] wc_i, input deq_i, output reg [23:0] credit_o,
                     output reg pick_o);
  reg [15:0] len_l, len_c;
  reg hv_l, hv_c, deq;
  reg [6:0] wc;
  reg [23:0] credit;
  wire pick_l = hv_l & (~hv_c | credit[23] | ~(|credit));
  wire [6:0] w = pick_l ? wc : 7'd100 - wc;
  wire [23:0] len = {8'd0, pick_l ? len_l : len_c};
  wire [23:0] inv = {24{~pick_l}};
  wire [23:0] sum = (((w[0] ? len : 24'd0) + (w[1] ? len << 1 : 24'd0))
                  + ((w[2] ? len << 2 : 24'd0) + (w[3] ? len << 3 : 24'd0)))
                  + (((w[4] ? len << 4 : 24'd0) + (w[5] ? len << 5 : 24'd0))
                  + ((w[6] ? len << 6 : 24'd0) + (credit ^ inv)));
  always @(posedge clk) begin
    {len_l, len_c, hv_l, hv_c, wc, deq} <= {len_l_i, len_c_i, hv_l_i, hv_c_i, wc_i, deq_i};
    if (deq & hv_l & hv_c) credit <= sum ^ inv;
    credit_o <= credit;
    pick_o <= pick_l;
  end
endmodule
