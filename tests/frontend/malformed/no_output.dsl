// expect: 4:1: error: program has no output (add a statement 'output name = expr;')
input x : i8[4];
let y = relu(x);
