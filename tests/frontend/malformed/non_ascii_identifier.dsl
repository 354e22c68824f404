// expect: 2:10: error: non-ASCII character outside a comment
input café : i8[4];
output o = relu(x);
