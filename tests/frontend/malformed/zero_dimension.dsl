// expect: 2:17: error: dimension 0 is out of range [1, 16777216]
input x : i8[4][0];
output o = relu(x);
