// A small attention head: S = 16 tokens, D = 16 (the self-attention benchmark's integer
// ReLU attention at a quarter of its size). One of the shapes the cycle model is checked
// on (docs/hardware.md, "Measured").
// MACs: 3 * 16*16*16 (projections) + 16*16*16 (scores) + 16*16*16 (A V) = 20,480.

input  x    : i8[16][16];
weight wq_t : i8[16][16];
weight wk_t : i8[16][16];
weight wv_t : i8[16][16];

let q = requant(mm(x, wq_t), 4);
let k = requant(mm(x, wk_t), 5);
let v = requant(mm(x, wv_t), 4);
let a = relu(requant(mm(q, k), 8));
output out = requant(mm(a, transpose(v)), 8);
