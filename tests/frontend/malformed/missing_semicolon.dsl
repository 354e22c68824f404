// expect: 3:1: error: expected ';', found 'output'
input x : i8[4]
output o = relu(x);
