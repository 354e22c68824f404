// VGG-16 for CIFAR-10 ("VGG-CIFAR"), the paper's first benchmark (Section VI, Table III
// experiments 1-2 and 10-18).
//
// Input 32x32x3 (H x W x C), 13 convolutions 3x3 stride 1 with "same" zero padding
// (pad(x, 1) before each valid conv), ReLU, 2x2/2 max pools after convs 2, 4, 7, 10 and
// 13, then a fully connected 512 -> 10 classifier (mv). Layer table and MAC counts:
// shared/reference/benchmarks.md.
//
// MACs: convolutions 313,196,544 (the artifact's GOPS constant) + FC 5,120
//       = 313,201,664.
//
// Integer arithmetic (docs/ir.md): activations and weights i8, every conv accumulates in
// i32 and is requantised to i8 by requant(x, s) = saturate8((x + 2^(s-1)) >> s), then
// ReLU. Deviations from the float network: no batch-norm and no biases (a folded
// batch-norm only changes the weights, biases use no DSPs and do not affect sharing);
// the requant shifts below are chosen for the generator's random data (activations
// uniform in [-128, 127], i8 weights uniform in the symmetric [-7, 7]; see README.md) so
// that the 99.9th percentile of the value that survives ReLU lands near 100: activations
// neither saturate nor vanish (about half of every layer's outputs are non-zero after
// ReLU, almost none saturate).
// The logits are left in i32 (no final requant).

input  image : i8[32][32][3];

weight w1  : i8[64][3][3][3];
weight w2  : i8[64][3][3][64];
weight w3  : i8[128][3][3][64];
weight w4  : i8[128][3][3][128];
weight w5  : i8[256][3][3][128];
weight w6  : i8[256][3][3][256];
weight w7  : i8[256][3][3][256];
weight w8  : i8[512][3][3][256];
weight w9  : i8[512][3][3][512];
weight w10 : i8[512][3][3][512];
weight w11 : i8[512][3][3][512];
weight w12 : i8[512][3][3][512];
weight w13 : i8[512][3][3][512];
weight fc  : i8[10][512];

// Block 1: 32x32, 3 -> 64 -> 64
let c1  = relu(requant(conv(pad(image, 1), w1), 6));
let c2  = relu(requant(conv(pad(c1, 1), w2), 6));
let p1  = maxpool(c2, 2);                               // 16x16x64

// Block 2: 16x16, 64 -> 128 -> 128
let c3  = relu(requant(conv(pad(p1, 1), w3), 7));
let c4  = relu(requant(conv(pad(c3, 1), w4), 7));
let p2  = maxpool(c4, 2);                               // 8x8x128

// Block 3: 8x8, 128 -> 256 -> 256 -> 256
let c5  = relu(requant(conv(pad(p2, 1), w5), 7));
let c6  = relu(requant(conv(pad(c5, 1), w6), 7));
let c7  = relu(requant(conv(pad(c6, 1), w7), 7));
let p3  = maxpool(c7, 2);                               // 4x4x256

// Block 4: 4x4, 256 -> 512 -> 512 -> 512
let c8  = relu(requant(conv(pad(p3, 1), w8), 7));
let c9  = relu(requant(conv(pad(c8, 1), w9), 8));
let c10 = relu(requant(conv(pad(c9, 1), w10), 7));
let p4  = maxpool(c10, 2);                              // 2x2x512

// Block 5: 2x2, 512 -> 512 -> 512 -> 512
let c11 = relu(requant(conv(pad(p4, 1), w11), 8));
let c12 = relu(requant(conv(pad(c11, 1), w12), 7));
let c13 = relu(requant(conv(pad(c12, 1), w13), 7));
let p5  = maxpool(c13, 2);                              // 1x1x512

// Classifier: 512 -> 10
output logits = mv(fc, flatten(p5));
