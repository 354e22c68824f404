// A 3x3 convolution of a single-channel image (tests/tools/cli_sim_test.cpp): the window
// is flattened as 3x3x1, whose channel digit has radix 1.
input  image : i8[8][8][1];
weight w     : i8[1][3][3][1];
output o = requant(conv(pad(image, 1), w), 4);
