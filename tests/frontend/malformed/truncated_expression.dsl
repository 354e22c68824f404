// expect: 4:20: error: expected an expression, found end of file
input image : i8[32][32][3];
weight w1 : i8[64][3][3][64];
let c = conv(image,