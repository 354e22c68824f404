// An image filter pair: a 3x3 smoothing filter, then a 3x3 sharpening filter, on a
// 32x32 single-channel image ("same" padding, requantised to i8). One of the shapes the
// cycle model is checked on (docs/hardware.md, "Measured").
// MACs: 32*32*9 + 32*32*9 = 18,432.

input  image  : i8[32][32][1];
weight smooth : i8[1][3][3][1];
weight sharp  : i8[1][3][3][1];

let s = requant(conv(pad(image, 1), smooth), 4);   // 32x32x1
output o = requant(conv(pad(s, 1), sharp), 3);     // 32x32x1
