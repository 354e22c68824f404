// expect: 4:1: error: program has no output (add a statement 'output name = expr;')
// nothing but comments
# and more comments
