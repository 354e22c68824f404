// expect: 3:36: error: pad: fill -129 does not fit in i8, the input's element type
input x : i8[8][8];
output o = pad(x, 0, 1, 0, 1, fill=-129);
