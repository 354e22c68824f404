// expect: 2:62: error: too many dimensions (limit 16)
input x : i8[1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1];
output o = relu(x);
