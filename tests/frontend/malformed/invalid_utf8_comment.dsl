// expect: 2:24: error: invalid UTF-8 byte 0xe9 in comment
input x : i8[4]; // café in Latin-1
output o = relu(x);
