// expect: 3:12: error: pad: result: dimension 16779000 of i8[16779000][2001] is out of range [1, 16777216]
input x : i8[16777000][1];
output o = pad(x, 1000);
