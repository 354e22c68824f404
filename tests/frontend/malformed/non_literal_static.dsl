// expect: 4:23: error: maxpool: size must be an integer literal
input x : i8[8][8];
input k : i8[1];
output o = maxpool(x, k);
