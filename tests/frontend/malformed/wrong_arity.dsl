// expect: 4:12: error: conv expects 2 arguments, got 1 (usage: conv(input, weights))
input image : i8[32][32][3];
weight w1 : i8[64][3][3][64];
output o = conv(image);
