// expect: 3:17: error: undefined name 'y'
input x : i8[4];
output o = relu(y);
