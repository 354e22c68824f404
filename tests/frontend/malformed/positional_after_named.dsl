// expect: 3:27: error: positional argument after a named argument
input x : i8[4][4];
output o = pad(x, fill=1, 2);
