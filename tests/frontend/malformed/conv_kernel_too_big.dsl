// expect: 4:12: error: conv: kernel size 3 exceeds the input's 2x2 (input i8[2][2][3])
input x : i8[2][2][3];
weight w : i8[4][3][3][3];
output o = conv(x, w);
