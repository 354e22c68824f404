// expect: 2:7: error: input 'x': i8[16777216][16777216][16] has too many elements (limit 68719476736)
input x : i8[16777216][16777216][16];
output o = relu(x);
