// expect: 2:14: error: dimension 100000000 is out of range [1, 16777216]
input x : i8[100000000][2];
output o = relu(x);
