// expect: 3:16: error: integer literal 2147483648 does not fit in i32
input x : i32[4];
output o = x + 2147483648;
