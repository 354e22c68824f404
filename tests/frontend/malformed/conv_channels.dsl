// expect: 4:12: error: conv: weight expects 64 input channels, input has 3 (weights i8[64][3][3][64], input i8[32][32][3])
input image : i8[32][32][3];
weight w1 : i8[64][3][3][64];
output o = conv(image, w1);
