// A lambda inside a convolution network: a per-pixel channel sum between two layers.
input image : i8[10][10][4];
weight w1 : i8[8][3][3][4];
let c1 = relu(requant(conv(pad(image, 1, 1, 1, 1), w1), 6));   // i8[10][10][8]
let clipped = map(c1, \row. map(row, \px. min(px, 63)));        // i8[10][10][8]
output chsum = map(clipped, \row. map(row, \px. reduce(px, 0, \acc v. acc + v)));
