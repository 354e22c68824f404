// expect: 3:23: error: maxpool: window size 4 exceeds the input's 3x3 (input i8[3][3])
input x : i8[3][3];
output o = maxpool(x, 4);
