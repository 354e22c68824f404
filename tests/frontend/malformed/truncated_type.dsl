// expect: 2:15: error: expected ']', found end of file
input x : i8[3