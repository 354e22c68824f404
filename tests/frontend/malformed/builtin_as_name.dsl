// expect: 2:7: error: 'conv' is the name of a built-in operator
input conv : i8[4];
output o = relu(conv);
