// expect: 3:12: error: unknown operator 'softmax'
input x : i8[4];
output o = softmax(x);
