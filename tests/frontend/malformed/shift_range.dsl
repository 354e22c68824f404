// expect: 3:23: error: requant: shift 32 is out of range [0, 31]
input x : i32[4];
output o = requant(x, 32);
