// One self-attention layer in integer arithmetic (Section VI, Table III experiments 6-7).
//
// Configuration: S = 64 tokens, D = 64 (one head, d_model = d_head = 64). The paper does
// not give its shapes; 64 is the head dimension of BERT/ViT-style models and the number
// of int8 values in one 512-bit host line, and S = D = 64 keeps all five products the
// same square 64x64x64 shape class, which is the interesting case for sharing one
// matrix-multiply unit between the projections and the attention products.
//
// MACs (mm(a[H][K], b[W][K]) costs H*W*K):
//   Q, K, V projections  3 * 64*64*64 =   786,432
//   scores  Q * K^T          64*64*64 =   262,144
//   out     A * V            64*64*64 =   262,144
//   total                               1,310,720
//
// mm follows the paper's Mm convention, mm(a, b) = a * b^T. The projection weights are
// therefore stored TRANSPOSED: wq_t = Wq^T (wq_t[j][i] = Wq[i][j]), so that
// mm(x, wq_t) = x * Wq. Likewise scores = mm(q, k) = Q * K^T, and the weighted sum
// uses transpose(v): mm(a, transpose(v)) = A * V.
//
// Softmax is not integer arithmetic. This program uses ReLU attention normalised by the
// sequence length, as in "Replacing softmax with ReLU in Vision Transformers" (Wortsman
// et al., 2023): A = relu(Q K^T / sqrt(D)), out = (A V) / S. In fixed point:
//   - Q, K, V are requantised to i8 (requant shift 6: with the generator's random data,
//     activations uniform in [-128, 127] and weights in [-7, 7] (rms 4.3), the i32 sum
//     of 64 products has a standard deviation of about 8*74*4.3 ~ 2^11.3);
//   - the scores are requantised by a shift of 9 = 3 (the 1/sqrt(D) = 2^-3 scale) + 6
//     (fixed-point rescaling), then relu: A is i8 in [0, 127];
//   - out is requantised by a shift of 8 = 6 (the 1/S = 2^-6 normalisation) + 2
//     (fixed-point rescaling); out is i8[S][D], ready to feed the next layer.
// The shifts are chosen so that with the CLI's random i8 data no stage saturates or
// vanishes (README.md). No output projection Wo, no biases, no residual.

input  x    : i8[64][64];          // S x D activations
weight wq_t : i8[64][64];          // Wq transposed
weight wk_t : i8[64][64];          // Wk transposed
weight wv_t : i8[64][64];          // Wv transposed

let q = requant(mm(x, wq_t), 6);                   // 64 x 64, Q = X Wq
let k = requant(mm(x, wk_t), 6);                   // 64 x 64, K = X Wk
let v = requant(mm(x, wv_t), 6);                   // 64 x 64, V = X Wv
let a = relu(requant(mm(q, k), 9));                 // 64 x 64, relu(Q K^T / sqrt(D))
output out = requant(mm(a, transpose(v)), 8);       // 64 x 64, (A V) / S
