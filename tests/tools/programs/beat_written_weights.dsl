// One 3x3 convolution over 64 channels: every weight row is a whole 64-byte line, so the
// replayed weight read's runs never cross a 64-lane block and its replay buffer is
// written a block per cycle (docs/hardware.md, "Replay buffers written in beats").
input  image : i8[6][6][64];
weight w1    : i8[8][3][3][64];
output c1 = relu(requant(conv(pad(image, 1), w1), 8));
