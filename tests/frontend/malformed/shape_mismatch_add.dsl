// expect: 4:14: error: '+': operands must have the same shape, got i8[4][3] and i8[3][4]
input a : i8[4][3];
input b : i8[3][4];
output o = a + b;
