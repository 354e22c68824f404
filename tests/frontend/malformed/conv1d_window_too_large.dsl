// expect: 4:12: error: conv1d_w: the 8388609x8388608 window matrix exceeds the element limit 68719476736
input x : i8[1][16777216];
weight k : i8[8388608];
output o = conv1d_w(x, k);
