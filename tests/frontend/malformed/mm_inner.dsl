// expect: 4:12: error: mm: inner dimensions differ: a is i8[4][8], b is i8[5][7] (mm computes a * b^T)
input a : i8[4][8];
input b : i8[5][7];
output o = mm(a, b);
