// Small TinyYolo v2, full network (see ../tinyyolo_v2_full.dsl): all nine layers with
// tiny shapes, for fast tests and hardware simulation.
//
// Input 64x64x3, so all five 2x2/2 pools remain (64 -> 2, as 416 -> 13); channels
// 2, 4, 8, 16, 32, 64, 128, 128 (TinyYolo: 16 ... 1024, 1024, divided by 8); the sixth
// pool is 2x2 stride 1 after a bottom row and right column of -128, keeping 2x2; the
// final linear layer is 1x1, 128 -> 13 (an odd count, like 125).
//
// MACs (H*W*KS*KS*ICH*OCH): c1 221,184  c2 73,728  c3 73,728  c4 73,728  c5 73,728
//   c6 73,728  c7 294,912  c8 589,824  c9 (1x1) 6,656; total 1,481,216.
// Leaky ReLU slope 1/8, requant shifts chosen for the generator's random data (README.md).

input  image : i8[64][64][3];

weight w1 : i8[2][3][3][3];
weight w2 : i8[4][3][3][2];
weight w3 : i8[8][3][3][4];
weight w4 : i8[16][3][3][8];
weight w5 : i8[32][3][3][16];
weight w6 : i8[64][3][3][32];
weight w7 : i8[128][3][3][64];
weight w8 : i8[128][3][3][128];
weight w9 : i8[13][1][1][128];

let c1 = leaky_relu(requant(conv(pad(image, 1), w1), 6), 3);   // 64x64x2
let p1 = maxpool(c1, 2);                                        // 32x32x2
let c2 = leaky_relu(requant(conv(pad(p1, 1), w2), 4), 3);      // 32x32x4
let p2 = maxpool(c2, 2);                                        // 16x16x4
let c3 = leaky_relu(requant(conv(pad(p2, 1), w3), 5), 3);      // 16x16x8
let p3 = maxpool(c3, 2);                                        // 8x8x8
let c4 = leaky_relu(requant(conv(pad(p3, 1), w4), 4), 3);      // 8x8x16
let p4 = maxpool(c4, 2);                                        // 4x4x16
let c5 = leaky_relu(requant(conv(pad(p4, 1), w5), 6), 3);      // 4x4x32
let p5 = maxpool(c5, 2);                                        // 2x2x32
let c6 = leaky_relu(requant(conv(pad(p5, 1), w6), 5), 3);      // 2x2x64
let p6 = maxpool(pad(c6, 0, 1, 0, 1, fill=-128), 2, 1);         // 3x3 -> 2x2x64
let c7 = leaky_relu(requant(conv(pad(p6, 1), w7), 7), 3);      // 2x2x128
let c8 = leaky_relu(requant(conv(pad(c7, 1), w8), 6), 3);      // 2x2x128

output detections = conv(c8, w9);                               // 2x2x13 (i32), 1x1
