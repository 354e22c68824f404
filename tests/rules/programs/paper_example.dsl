// The paper's running example (Section I, Fig. 3): mv(fc, flatten(conv(pad(x), w))).
// conv: 64 -> 64 channels, 3x3 kernels, on a 2x2 image padded to 4x4, so flatten gives
// 64*2*2 = 256 values; the FC is 64 x 256. R-PAD-MV pads it to 576 = 64*3*3 columns,
// where it shares the convolution's cMvF[64, 576].
input  x  : i8[2][2][64];
weight w  : i8[64][3][3][64];
weight fc : i8[64][256];
output y = mv(fc, flatten(requant(conv(pad(x, 1), w), 8)));
