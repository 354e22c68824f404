// expect: 3:22: error: zip: the lambda must take 2 parameters, got 1
input x : i8[4];
output o = zip(x, x, \a. a);
