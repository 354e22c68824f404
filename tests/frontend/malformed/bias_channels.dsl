// expect: 4:12: error: bias: bias has 10 elements, input has 64 channels (input i32[4][4][64], bias i32[10])
input x : i32[4][4][64];
weight b : i32[10];
output o = bias(x, b);
