// expect: 3:17: error: a lambda may only appear as the last argument of map, zip or reduce
input x : i8[4];
output o = relu(\v. v);
