// expect: 3:14: error: unexpected character '/'
input x : i8[4];
output o = x / 2;
