// expect: 3:20: error: cast: second argument must be a type (i8, i16 or i32)
input x : i8[4];
output o = cast(x, 16);
