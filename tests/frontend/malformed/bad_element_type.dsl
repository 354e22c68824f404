// expect: 2:11: error: expected an element type (i8, i16 or i32), found 'u8'
input x : u8[4];
output o = relu(x);
