// A conv chain: three 3x3 "same" convolutions with ReLU and one 2x2 pool on a 16x16x8
// feature map, channel counts 8 -> 16 -> 16 -> 32 (a VGG block). One of the shapes the
// cycle model is checked on (docs/hardware.md, "Measured").
// MACs: 16*16*9*8*16 + 16*16*9*16*16 + 8*8*9*16*32 = 294,912 + 589,824 + 294,912 = 1,179,648.

input  x  : i8[16][16][8];
weight w1 : i8[16][3][3][8];
weight w2 : i8[16][3][3][16];
weight w3 : i8[32][3][3][16];

let c1 = relu(requant(conv(pad(x, 1), w1), 6));    // 16x16x16
let c2 = relu(requant(conv(pad(c1, 1), w2), 6));   // 16x16x16
let p  = maxpool(c2, 2);                            // 8x8x16
output o = relu(requant(conv(pad(p, 1), w3), 6));  // 8x8x32
