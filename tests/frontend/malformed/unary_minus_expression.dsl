// expect: 3:12: error: unary '-' applies only to integer literals; write sub(0, x) or 0 - x
input x : i8[4];
output o = -x;
