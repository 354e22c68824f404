// Element-wise lambdas over two inputs: |a - b| as max - min, then a shift and a bias.
input a : i8[12][20];
input b : i8[12][20];
output d = zip(a, b, \x y. (max(x, y) - min(x, y)) >> 1);
