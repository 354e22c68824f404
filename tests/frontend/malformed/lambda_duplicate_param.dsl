// expect: 3:25: error: duplicate parameter 'a'
input x : i8[4];
output o = zip(x, x, \a a. a);
