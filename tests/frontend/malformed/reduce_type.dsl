// expect: 3:35: error: reduce: the function returns i32, but the accumulator (init) has type i8
input x : i8[4];
output o = reduce(x, cast(0, i8), \acc v. acc * v);
