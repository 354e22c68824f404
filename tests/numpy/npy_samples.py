#!/usr/bin/python3
"""NumPy side of the .npy interoperability test (tests/support/npy_test.cpp).

  npy_samples.py write DIR   writes sample files (every dtype and layout the C++ reader
                             must accept or reject) into DIR
  npy_samples.py check DIR   checks the files the C++ writer put into DIR; exit status 1
                             and a message on the first mismatch
"""
import os
import sys

import numpy as np


def grid(dtype, shape, start):
    n = int(np.prod(shape))
    return (np.arange(n, dtype=np.int64) + start).astype(dtype).reshape(shape)


def write(d):
    np.save(os.path.join(d, "i8.npy"), grid(np.int8, (3, 4), -6))
    np.save(os.path.join(d, "i16.npy"), grid(np.int16, (2, 3, 2), -1000))
    np.save(os.path.join(d, "i32.npy"), np.array([-2**31, 2**31 - 1, 0, 7], dtype=np.int32))
    np.save(os.path.join(d, "i64_fits.npy"), grid(np.int64, (5,), -2))
    np.save(os.path.join(d, "i64_big.npy"), np.array([1, 2**40], dtype=np.int64))
    np.save(os.path.join(d, "u8.npy"), np.array([[0, 127], [128, 255]], dtype=np.uint8))
    np.save(os.path.join(d, "scalar.npy"), np.array(-42, dtype=np.int16))
    np.save(os.path.join(d, "f32.npy"), np.zeros((2,), dtype=np.float32))
    np.save(os.path.join(d, "fortran.npy"), np.asfortranarray(grid(np.int32, (2, 3), 0)))
    np.save(os.path.join(d, "big_endian.npy"), grid(np.dtype(">i4"), (3,), 0))
    with open(os.path.join(d, "v2.npy"), "wb") as f:
        np.lib.format.write_array(f, grid(np.int16, (4, 2), 5), version=(2, 0))


def check(d):
    expected = {
        "w_i8.npy": grid(np.int8, (2, 3), -128),
        "w_i16.npy": np.array([[-32768, 32767]], dtype=np.int16),
        "w_i32.npy": np.array([-2**31, 2**31 - 1, 5], dtype=np.int32),
        "w_scalar.npy": np.array(9, dtype=np.int32),
        "w_long.npy": grid(np.int8, (1, 1, 1, 1, 70), 0),
    }
    for name, want in expected.items():
        got = np.load(os.path.join(d, name))
        if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
            print(f"mismatch in {name}: got {got.dtype} {got.shape} {got!r}, want {want.dtype} {want.shape}")
            return 1
        with open(os.path.join(d, name), "rb") as f:
            data = f.read()
        header = np.lib.format.read_magic(open(os.path.join(d, name), "rb"))
        if header != (1, 0) or len(data) - want.nbytes not in (64, 128, 192):
            print(f"{name}: unexpected version {header} or header size {len(data) - want.nbytes}")
            return 1
    print("ok")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "check"):
        print(__doc__)
        sys.exit(2)
    if sys.argv[1] == "write":
        write(sys.argv[2])
        sys.exit(0)
    sys.exit(check(sys.argv[2]))
