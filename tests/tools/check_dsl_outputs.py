#!/usr/bin/python3
"""NumPy recomputation of tests/tools/programs/dsp_ops.dsl, run by `skeleshare run
--save-inputs`: DIR holds input.<name>.npy and <output>.npy. Reuses the independent
NumPy definitions of tests/numpy/check_interpreter.py. Exit 0 when all outputs match
in value and dtype."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "numpy"))
import check_interpreter as ref  # noqa: E402


def main(d):
    def inp(name):
        return np.load(os.path.join(d, "input.%s.npy" % name))

    x, w, mat, vec, a, b, img, k = (inp(n) for n in ("x", "w", "mat", "vec", "a", "b", "img", "k"))
    i64 = ref.i64
    expected = {
        "conv_out": ref.wrap(ref.conv(x, w), 32),
        "mv_out": ref.wrap(i64(mat) @ i64(vec), 32),
        "mm_out": ref.wrap(i64(a) @ i64(b).T, 32),
        "conv1dw_out": ref.wrap(ref.conv1d_w(img, k), 32),
        "conv1dh_out": ref.wrap(ref.conv1d_h(img, k), 32),
        "requant_out": ref.requant(ref.wrap(ref.conv(x, w), 32), 5),
    }
    bad = 0
    for name, want in expected.items():
        got = np.load(os.path.join(d, name + ".npy"))
        if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
            print("%s: mismatch: got %s%s, want %s%s" % (name, got.dtype, got.shape, want.dtype, want.shape))
            bad += 1
    print("%d outputs checked, %d mismatches" % (len(expected), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
