// expect: 3:8: error: redefinition of 'x'
input x : i8[4];
weight x : i8[4];
output o = relu(x);
