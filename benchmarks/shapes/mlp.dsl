// A multi-layer perceptron: 256 -> 128 -> 64 -> 10 fully connected layers with ReLU. One
// of the shapes the cycle model is checked on (docs/hardware.md, "Measured").
// MACs: 256*128 + 128*64 + 64*10 = 32,768 + 8,192 + 640 = 41,600.

input  x  : i8[256];
weight w1 : i8[128][256];
weight w2 : i8[64][128];
weight w3 : i8[10][64];

let h1 = relu(requant(mv(w1, x), 7));
let h2 = relu(requant(mv(w2, h1), 6));
output y = mv(w3, h2);                              // i32[10]
