// expect: 3:17: error: 'i16' is a type, not a value (types appear in declarations and as cast's second argument)
input x : i8[4];
output o = relu(i16);
