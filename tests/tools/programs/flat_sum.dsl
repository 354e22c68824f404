// A global sum: a reduction over a flattened tensor, in i32.
input x : i8[6][10][4];
output s = reduce(flatten(x), 0, \acc v. acc + v);
