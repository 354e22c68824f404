#!/usr/bin/python3
"""Independent NumPy recomputation of interpreter results (tests/ir/interpreter_numpy_test.cpp).

  check_interpreter.py DIR

DIR/cases.txt has one case per line: `name op param...`; DIR/<name>_in<i>.npy are the
inputs and DIR/<name>_out.npy the interpreter's output. Every result is recomputed here
from the definitions in docs/ir.md with int64 arithmetic and then wrapped to the result
width. (NumPy's int64 array arithmetic wraps modulo 2^64 on overflow, which i32*i32
dot products can reach; 2^32 divides 2^64, so the value modulo 2^32 is still exact.)
Exit status 0 when every case matches, 1 with a message otherwise.
"""
import os
import sys

import numpy as np


def wrap(v, bits):
    v = np.asarray(v, dtype=np.int64)
    m = np.int64(1) << np.int64(bits)
    h = np.int64(1) << np.int64(bits - 1)
    return ((v + h) % m - h).astype({8: np.int8, 16: np.int16, 32: np.int32}[bits])


def i64(a):
    return a.astype(np.int64)


def conv(x, w):
    x, w = i64(x), i64(w)
    o, ks = w.shape[0], w.shape[1]
    oh, ow = x.shape[0] - ks + 1, x.shape[1] - ks + 1
    out = np.zeros((oh, ow, o), dtype=np.int64)
    for ky in range(ks):
        for kx in range(ks):
            out += np.einsum("yxc,oc->yxo", x[ky:ky + oh, kx:kx + ow, :], w[:, ky, kx, :])
    return out


def conv_loops(x, w):
    """The same convolution as explicit loops over the window (a second opinion)."""
    x, w = i64(x), i64(w)
    o, ks = w.shape[0], w.shape[1]
    oh, ow = x.shape[0] - ks + 1, x.shape[1] - ks + 1
    out = np.zeros((oh, ow, o), dtype=np.int64)
    for y in range(oh):
        for xx in range(ow):
            win = x[y:y + ks, xx:xx + ks, :].reshape(-1)
            out[y, xx, :] = w.reshape(o, -1) @ win
    return out


def requant(x, s):
    x = i64(x)
    if s > 0:
        x = (x + (np.int64(1) << np.int64(s - 1))) >> np.int64(s)
    return np.clip(x, -128, 127).astype(np.int8)


def conv1d_w(img, w):
    img, w = i64(img), i64(w)
    k = w.shape[0]
    ow = img.shape[1] - k + 1
    return sum(img[:, j:j + ow] * w[j] for j in range(k))


def conv1d_h(img, w):
    img, w = i64(img), i64(w)
    k = w.shape[0]
    oh = img.shape[0] - k + 1
    return sum(img[j:j + oh, :] * w[j] for j in range(k))


def maxpool(x, size, stride):
    oh = (x.shape[0] - size) // stride + 1
    ow = (x.shape[1] - size) // stride + 1
    out = np.empty((oh, ow) + x.shape[2:], dtype=x.dtype)
    for i in range(oh):
        for j in range(ow):
            out[i, j] = x[i * stride:i * stride + size, j * stride:j * stride + size].max(axis=(0, 1))
    return out


def expected(op, params, ins):
    if op == "conv":
        a, b = wrap(conv(*ins), 32), wrap(conv_loops(*ins), 32)
        if not np.array_equal(a, b):
            raise RuntimeError("einsum and loop convolutions disagree")
        return a
    if op == "mv":
        return wrap(i64(ins[0]) @ i64(ins[1]), 32)
    if op == "mm":
        return wrap(i64(ins[0]) @ i64(ins[1]).T, 32)
    if op == "conv1d_w":
        return wrap(conv1d_w(*ins), 32)
    if op == "conv1d_h":
        return wrap(conv1d_h(*ins), 32)
    if op == "requant":
        return requant(ins[0], params[0])
    if op == "conv_block":  # Requant[s](Relu(Bias(Conv(x, w), b))) then MaxPool[2, 2]
        acc = wrap(conv(ins[0], ins[1]), 32)
        acc = wrap(i64(acc) + i64(ins[2]), 32)
        return maxpool(requant(np.maximum(acc, 0), params[0]), 2, 2)
    raise RuntimeError(f"unknown op {op}")


def main(d):
    with open(os.path.join(d, "cases.txt")) as f:
        lines = [ln.split() for ln in f if ln.strip()]
    if not lines:
        print("no cases")
        return 1
    for name, op, *params in lines:
        params = [int(p) for p in params]
        ins = []
        i = 0
        while os.path.exists(os.path.join(d, f"{name}_in{i}.npy")):
            ins.append(np.load(os.path.join(d, f"{name}_in{i}.npy")))
            i += 1
        got = np.load(os.path.join(d, f"{name}_out.npy"))
        want = expected(op, params, ins)
        if got.dtype != want.dtype or got.shape != want.shape:
            print(f"{name}: got {got.dtype}{list(got.shape)}, want {want.dtype}{list(want.shape)}")
            return 1
        if not np.array_equal(got, want):
            idx = tuple(int(v) for v in np.argwhere(got != want)[0])
            print(f"{name}: {int(np.sum(got != want))} elements differ; first at {idx}: got {got[idx]}, want {want[idx]}")
            return 1
        print(f"{name}: ok ({op}, {want.dtype}{list(want.shape)})")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
