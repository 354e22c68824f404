// expect: 3:16: error: '+': literal 300 does not fit in i8, the element type of the other operand
input x : i8[4];
output o = x + 300;
