// expect: 2:17: error: undefined name 'x'
output o = relu(x);
input x : i8[4];
