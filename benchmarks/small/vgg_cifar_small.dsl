// Small VGG-CIFAR (see ../vgg_cifar.dsl): the same 19-layer structure with tiny channel
// counts, for fast tests and hardware simulation.
//
// Input 32x32x3 (the full network's input, so all five 2x2/2 pools remain and the last
// one reaches 1x1); 13 "same" 3x3 convs with ReLU; channels divided by 32 (VGG: 64, 128,
// 256, 512 -> here 2, 4, 8, 16, still doubling per block); FC 16 -> 10.
//
// MACs (H*W*9*ICH*OCH per conv):
//   c1 55,296  c2 36,864 | c3 18,432  c4 36,864 | c5 18,432  c6 36,864  c7 36,864 |
//   c8 18,432  c9 36,864  c10 36,864 | c11 9,216  c12 9,216  c13 9,216
//   convs 359,424 + FC 160 = 359,584.
// Requant shifts chosen for the generator's random data like the full program (README.md).

input  image : i8[32][32][3];

weight w1  : i8[2][3][3][3];
weight w2  : i8[2][3][3][2];
weight w3  : i8[4][3][3][2];
weight w4  : i8[4][3][3][4];
weight w5  : i8[8][3][3][4];
weight w6  : i8[8][3][3][8];
weight w7  : i8[8][3][3][8];
weight w8  : i8[16][3][3][8];
weight w9  : i8[16][3][3][16];
weight w10 : i8[16][3][3][16];
weight w11 : i8[16][3][3][16];
weight w12 : i8[16][3][3][16];
weight w13 : i8[16][3][3][16];
weight fc  : i8[10][16];

let c1  = relu(requant(conv(pad(image, 1), w1), 6));  // 32x32x2
let c2  = relu(requant(conv(pad(c1, 1), w2), 3));
let p1  = maxpool(c2, 2);                               // 16x16x2
let c3  = relu(requant(conv(pad(p1, 1), w3), 4));     // 16x16x4
let c4  = relu(requant(conv(pad(c3, 1), w4), 4));
let p2  = maxpool(c4, 2);                               // 8x8x4
let c5  = relu(requant(conv(pad(p2, 1), w5), 4));     // 8x8x8
let c6  = relu(requant(conv(pad(c5, 1), w6), 5));
let c7  = relu(requant(conv(pad(c6, 1), w7), 4));
let p3  = maxpool(c7, 2);                               // 4x4x8
let c8  = relu(requant(conv(pad(p3, 1), w8), 5));     // 4x4x16
let c9  = relu(requant(conv(pad(c8, 1), w9), 4));
let c10 = relu(requant(conv(pad(c9, 1), w10), 5));
let p4  = maxpool(c10, 2);                              // 2x2x16
let c11 = relu(requant(conv(pad(p4, 1), w11), 5));   // 2x2x16
let c12 = relu(requant(conv(pad(c11, 1), w12), 5));
let c13 = relu(requant(conv(pad(c12, 1), w13), 4));
let p5  = maxpool(c13, 2);                              // 1x1x16

output logits = mv(fc, flatten(p5));                    // 10
