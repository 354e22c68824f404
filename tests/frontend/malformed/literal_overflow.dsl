// expect: 3:16: error: integer literal 99999999999999999999999999 is too large (limit 2147483648)
input x : i32[4];
output o = x + 99999999999999999999999999;
