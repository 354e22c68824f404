// Small self-attention layer (see ../self_attention.dsl): S = 8 tokens, D = 8, for fast
// tests and hardware simulation. Same integer ReLU attention:
//   Q = X Wq, K = X Wk, V = X Wv (weights stored transposed: mm(a, b) = a * b^T),
//   A = relu(Q K^T / sqrt(D)), out = (A V) / S, each step requantised to i8.
// MACs: 3 * 8*8*8 (projections) + 8*8*8 (scores) + 8*8*8 (A V) = 2,560.
// Shifts chosen for the generator's random data (README.md).

input  x    : i8[8][8];            // S x D activations
weight wq_t : i8[8][8];            // Wq transposed
weight wk_t : i8[8][8];            // Wk transposed
weight wv_t : i8[8][8];            // Wv transposed

let q = requant(mm(x, wq_t), 4);                   // 8 x 8, Q = X Wq
let k = requant(mm(x, wk_t), 5);                   // 8 x 8, K = X Wk
let v = requant(mm(x, wv_t), 4);                   // 8 x 8, V = X Wv
let a = relu(requant(mm(q, k), 7));                // 8 x 8, relu(Q K^T / sqrt(D))
output out = requant(mm(a, transpose(v)), 7);      // 8 x 8, (A V) / S
