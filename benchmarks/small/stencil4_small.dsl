// Small 4-stage stencil (see ../stencil4.dsl): the same Gaussian blur + Sobel pipeline
// on an 8x8 i8 image, for fast tests and hardware simulation.
// MACs: 4 stages x 8*8 points x 3 taps = 768.
// Intended taps (3 fractional bits): blur_w = blur_h = edge_h = [2, 4, 2],
// edge_w = [4, 0, -4]; every stage zero-padded by one on its convolved side and
// requantised by requant(x, 3).

input  image  : i8[8][8];
weight blur_w : i8[3];
weight blur_h : i8[3];
weight edge_w : i8[3];
weight edge_h : i8[3];

let b1 = requant(conv1d_w(pad(image, 0, 0, 1, 1), blur_w), 3);   // 8x8
let b2 = requant(conv1d_h(pad(b1, 1, 1, 0, 0), blur_h), 3);      // 8x8, blurred
let e1 = requant(conv1d_w(pad(b2, 0, 0, 1, 1), edge_w), 3);      // 8x8
output edges = requant(conv1d_h(pad(e1, 1, 1, 0, 0), edge_h), 3); // 8x8, Gx / 8
