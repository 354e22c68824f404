// expect: 4:12: error: mv: matrix has 512 columns, vector has 256 elements (matrix i8[10][512], vector i8[256])
weight fc : i8[10][512];
input v : i8[256];
output o = mv(fc, v);
