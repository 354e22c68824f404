// expect: 2:8: error: expected ':' and a type, found ';'
input x;
output o = relu(x);
