// expect: 3:12: error: 'x' is a value, not an operator
input x : i8[4];
output o = x(1);
