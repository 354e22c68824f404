// Every DSP operator and requant as its own output, for the NumPy cross-check of the
// DSL evaluator through the command line (tests/tools/check_dsl_outputs.py).
input  x   : i8[7][6][3];
weight w   : i8[4][3][3][3];
weight mat : i8[5][9];
input  vec : i8[9];
input  a   : i16[4][6];
weight b   : i8[3][6];
input  img : i8[6][8];
weight k   : i8[3];
output conv_out    = conv(x, w);
output mv_out      = mv(mat, vec);
output mm_out      = mm(a, b);
output conv1dw_out = conv1d_w(img, k);
output conv1dh_out = conv1d_h(img, k);
output requant_out = requant(conv(x, w), 5);
