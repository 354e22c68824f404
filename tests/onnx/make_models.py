#!/usr/bin/python3
"""Test models for `skeleshare import MODEL.onnx -o DIR` (the ONNX importer).

  make_models.py OUTDIR        builds every model into OUTDIR (created if missing):
                                 NAME.onnx            the model (passes onnx.checker.check_model)
                                 NAME.input.npy       quantised int8 input, DSL layout
                                 NAME.expected.npy    graph output as an integer, DSL layout
                                 manifest.json        what is where, and why the bad ones are bad
  make_models.py --self-test   a few asserts on the NumPy evaluator, exit status 0 if they pass

vgg_qdq is evaluated too (statistics only, under a second) but gets no input/expected
files.

Needs the `onnx` Python package (1.12 has no onnx.reference), so the expected outputs come
from the small NumPy evaluator below, written independently of the C++ importer. It runs
the ONNX graph node by node in float64 exactly as the ONNX operator specification says
(QuantizeLinear rounds half to even and saturates). All scales of the good models are
powers of two and all zero points 0, so float64 is exact.

Layouts: ONNX is NCHW, the DSL is HWC. An image tensor [1,C,H,W] is stored as [H][W][C], a
vector [1,N] as [N]. "expected" is the integer graph output: if the graph output is
DequantizeLinear(q, s), expected is q and output_scale is s; if the graph output is
itself an integer tensor, expected is that tensor and output_scale is null.

Quantisation statistics (non-zero and saturated fractions of every requantised tensor,
rounding ties) go to stderr. A "tie" is an element whose x / scale lies exactly on .5; a
"differing tie" is one where round-half-to-even (ONNX) and round-half-up (the DSL's
requant, saturate8((x + 2^(s-1)) >> s)) give different results. The biases of the first
layer of conv_qdq, conv_qlinear and mlp_qdq are nudged (see plant_tie) so that differing
ties occur there for sure.
"""
import json
import os
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# Good thresholds for every requantised int8 tensor of a good model.
MIN_NONZERO = 0.30
MAX_SATURATED = 0.10


# =========================================================================================
# NumPy evaluator
# =========================================================================================

def _axis_view(param, ndim, axis):
    """A scale or zero point as something that broadcasts against an ndim tensor: scalars
    stay scalars, a 1-D per-axis parameter is laid along `axis` (ONNX per-axis form)."""
    param = np.asarray(param)
    if param.ndim == 0:
        return param
    shape = [1] * ndim
    shape[axis % ndim] = param.size
    return param.reshape(shape)


def quantize(x, scale, zero_point, axis=1, log=None, name=""):
    """ONNX QuantizeLinear: saturate(rint(x / scale) + zero_point) in float64. np.rint
    rounds half to even. The output type is the zero point's type (int8 or int32 here)."""
    zero_point = np.asarray(zero_point)
    r = np.asarray(x, np.float64) / _axis_view(scale, np.ndim(x), axis).astype(np.float64)
    info = np.iinfo(zero_point.dtype)
    unclipped = np.rint(r) + _axis_view(zero_point, np.ndim(x), axis).astype(np.float64)
    q = np.clip(unclipped, info.min, info.max).astype(zero_point.dtype)
    if log is not None:
        frac = r - np.floor(r)
        log.append({
            "node": name,
            "dtype": str(q.dtype),
            "size": int(q.size),
            "nonzero": float(np.count_nonzero(q)) / q.size,
            # at a bound: clipped, or landed exactly on it (counted as saturated too)
            "saturated": float(np.count_nonzero((unclipped <= info.min) | (unclipped >= info.max)))
                         / q.size,
            "ties": int(np.count_nonzero(frac == 0.5)),
            "differing_ties": int(np.count_nonzero(np.rint(r) != np.floor(r + 0.5))),
        })
    return q


def dequantize(x, scale, zero_point=None, axis=1):
    """ONNX DequantizeLinear: (x - zero_point) * scale in float64."""
    zp = 0.0 if zero_point is None else _axis_view(zero_point, np.ndim(x), axis).astype(np.float64)
    return (np.asarray(x, np.float64) - zp) * _axis_view(scale, np.ndim(x), axis).astype(np.float64)


def conv2d(x, w, b=None, pads=(0, 0, 0, 0), strides=(1, 1)):
    """ONNX Conv, NCHW, group 1, dilation 1. pads = [top, left, bottom, right] (ONNX order
    x1_begin, x2_begin, x1_end, x2_end). One tensordot per kernel tap, float64."""
    n, c, h, wd = x.shape
    oc, ic, kh, kw = w.shape
    assert ic == c, "Conv: channel mismatch"
    sh, sw = strides
    xp = np.pad(np.asarray(x, np.float64),
                ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (h + pads[0] + pads[2] - kh) // sh + 1
    ow = (wd + pads[1] + pads[3] - kw) // sw + 1
    out = np.zeros((oc, n, oh, ow))
    w = np.asarray(w, np.float64)
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw]
            out += np.tensordot(w[:, :, i, j], patch, axes=([1], [1]))  # [oc, n, oh, ow]
    out = out.transpose(1, 0, 2, 3)
    if b is not None:
        out = out + np.asarray(b, np.float64).reshape(1, -1, 1, 1)
    return out


def maxpool2d(x, kernel, strides):
    """ONNX MaxPool without padding, ceil_mode 0, dilation 1; keeps the dtype."""
    n, c, h, w = x.shape
    kh, kw = kernel
    sh, sw = strides
    oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
    out = None
    for i in range(kh):
        for j in range(kw):
            tap = x[:, :, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw]
            out = tap.copy() if out is None else np.maximum(out, tap)
    return out


def _attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _op_quantize_linear(node, a, log, x, scale, zp=None):
    if zp is None:
        zp = np.zeros((), np.uint8)  # ONNX default
    return quantize(x, scale, zp, a.get("axis", 1), log, node.name)


def _op_dequantize_linear(node, a, log, x, scale, zp=None):
    return dequantize(x, scale, zp, a.get("axis", 1))


def _conv_attrs(a, w):
    assert a.get("group", 1) == 1, "Conv: only group 1"
    assert a.get("auto_pad", b"NOTSET") in (b"NOTSET", "NOTSET"), "Conv: only explicit pads"
    assert all(d == 1 for d in a.get("dilations", [1, 1])), "Conv: only dilation 1"
    if "kernel_shape" in a:
        assert list(a["kernel_shape"]) == list(w.shape[2:])
    return a.get("pads", [0, 0, 0, 0]), a.get("strides", [1, 1])


def _op_conv(node, a, log, x, w, b=None):
    pads, strides = _conv_attrs(a, w)
    return conv2d(x, w, b, pads, strides)


def _op_qlinear_conv(node, a, log, x, xs, xzp, w, ws, wzp, ys, yzp, b=None):
    # Spec: dequantise x and w, convolve, add B (int32, scale xs*ws, zero point 0),
    # quantise with ys/yzp (half to even, saturate).
    pads, strides = _conv_attrs(a, w)
    xf = dequantize(x, xs, xzp)
    wf = dequantize(w, ws, wzp, axis=0)
    bf = None if b is None else dequantize(b, np.float64(xs) * _axis_view(ws, 1, 0))
    return quantize(conv2d(xf, wf, bf, pads, strides), ys, yzp, 1, log, node.name)


def _op_qlinear_matmul(node, a, log, x, xs, xzp, w, ws, wzp, ys, yzp):
    y = np.matmul(dequantize(x, xs, xzp), dequantize(w, ws, wzp))
    return quantize(y, ys, yzp, 1, log, node.name)


def _op_gemm(node, a, log, A, B, C=None):
    A = np.asarray(A, np.float64)
    B = np.asarray(B, np.float64)
    if a.get("transA", 0):
        A = A.T
    if a.get("transB", 0):
        B = B.T
    y = a.get("alpha", 1.0) * (A @ B)
    if C is not None:
        y = y + a.get("beta", 1.0) * np.asarray(C, np.float64)
    return y


def _op_matmul(node, a, log, A, B):
    return np.matmul(np.asarray(A, np.float64), np.asarray(B, np.float64))


def _op_relu(node, a, log, x):
    return np.maximum(x, np.zeros((), x.dtype))


def _op_add(node, a, log, x, y):
    assert x.dtype == y.dtype and x.dtype == np.float64, "Add: float inputs only here"
    return x + y


def _op_maxpool(node, a, log, x):
    assert all(p == 0 for p in a.get("pads", [0, 0, 0, 0])), "MaxPool: no padding here"
    assert a.get("ceil_mode", 0) == 0 and len(node.output) == 1
    return maxpool2d(x, a["kernel_shape"], a.get("strides", [1, 1]))


def _op_pad(node, a, log, x, pads, value=None):
    mode = a.get("mode", b"constant")
    assert mode in (b"constant", "constant"), "Pad: constant mode only"
    pads = [int(p) for p in pads]
    r = x.ndim
    width = [(pads[i], pads[i + r]) for i in range(r)]  # [x1_begin.., x1_end..]
    fill = 0 if value is None else np.asarray(value).item()
    return np.pad(x, width, mode="constant", constant_values=fill)


def _op_flatten(node, a, log, x):
    axis = a.get("axis", 1)
    lead = int(np.prod(x.shape[:axis]))
    return x.reshape(lead, -1)  # C order: an NCHW tensor flattens channel-major


def _op_reshape(node, a, log, x, shape):
    shape = [int(s) for s in shape]
    shape = [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]  # allowzero = 0
    return x.reshape(shape)


def _op_constant(node, a, log):
    v = numpy_helper.to_array(a["value"])
    return v.astype(np.float64) if v.dtype.kind == "f" else v


OPS = {
    "Constant": _op_constant,
    "QuantizeLinear": _op_quantize_linear,
    "DequantizeLinear": _op_dequantize_linear,
    "Conv": _op_conv,
    "QLinearConv": _op_qlinear_conv,
    "QLinearMatMul": _op_qlinear_matmul,
    "Gemm": _op_gemm,
    "MatMul": _op_matmul,
    "Relu": _op_relu,
    "Add": _op_add,
    "MaxPool": _op_maxpool,
    "Pad": _op_pad,
    "Flatten": _op_flatten,
    "Reshape": _op_reshape,
}


def evaluate(model, feeds, log=None):
    """Runs `model` on `feeds` (graph input name -> array). Float tensors are float64,
    integer tensors keep their ONNX type. Returns every tensor by name (graph outputs and
    intermediates). Nodes run in graph order (ONNX requires a topological order)."""
    env = {}
    for init in model.graph.initializer:
        arr = numpy_helper.to_array(init)
        env[init.name] = arr.astype(np.float64) if arr.dtype.kind == "f" else arr
    for name, arr in feeds.items():
        env[name] = np.asarray(arr)
    for node in model.graph.node:
        if node.op_type not in OPS:
            raise NotImplementedError("evaluator: no %s (node %s)" % (node.op_type, node.name))
        args = [env[i] if i else None for i in node.input]
        out = OPS[node.op_type](node, _attrs(node), log, *args)
        assert len(node.output) == 1
        env[node.output[0]] = out
    return env


def integer_output(model, env):
    """The graph's single output as the integer it is before a final DequantizeLinear:
    returns (integer array, output scale or None)."""
    (out,) = model.graph.output
    producer = {o: n for n in model.graph.node for o in n.output}[out.name]
    if producer.op_type == "DequantizeLinear":
        q = env[producer.input[0]]
        scale = np.asarray(env[producer.input[1]])
        assert scale.ndim == 0
        if len(producer.input) > 2 and producer.input[2]:
            assert not np.any(env[producer.input[2]]), "final DequantizeLinear: zero point 0"
        return q, float(scale)
    y = env[out.name]
    props = {p.key: p.value for p in model.metadata_props}
    if y.dtype.kind == "f" and "output_scale" in props:  # a float accumulator (Gemm logits)
        scale = float(props["output_scale"])
        q = y / scale
        assert np.all(q == np.rint(q)) and np.all(np.abs(q) < 2**31), "float output is not an int32 on its scale"
        return q.astype(np.int32), scale
    assert y.dtype.kind == "i", "graph output is neither integer nor DequantizeLinear"
    return y, None


def to_dsl(a):
    """ONNX layout -> DSL layout: [1,C,H,W] -> [H][W][C], [1,N] -> [N]."""
    a = np.asarray(a)
    assert a.shape[0] == 1, "batch must be 1"
    if a.ndim == 4:
        return np.ascontiguousarray(a[0].transpose(1, 2, 0))
    if a.ndim == 2:
        return np.ascontiguousarray(a[0])
    raise ValueError("unexpected rank %d" % a.ndim)


# =========================================================================================
# Model building helpers
# =========================================================================================

def p2(k):
    """2**k as a float (all good scales are powers of two)."""
    return float(2.0 ** k)


class Builder:
    """Collects nodes and initializers; tensors produced by a node are named like it."""

    def __init__(self, name):
        self.name = name
        self.nodes = []
        self.inits = {}

    def init(self, name, array):
        array = np.asarray(array)
        if name in self.inits:
            assert np.array_equal(numpy_helper.to_array(self.inits[name]), array), name
        else:
            self.inits[name] = numpy_helper.from_array(array, name)
        return name

    def scale(self, name, value):
        return self.init(name, np.array(value, np.float32))

    def zp8(self):
        return self.init("zp_i8", np.array(0, np.int8))

    def zp32(self):
        return self.init("zp_i32", np.array(0, np.int32))

    def node(self, op, name, inputs, out=None, **attrs):
        assert all(n.name != name for n in self.nodes), "duplicate node name " + name
        out = out or name
        self.nodes.append(helper.make_node(op, inputs, [out], name=name, **attrs))
        return out

    def q(self, name, x, scale_name, zp=None, out=None):
        return self.node("QuantizeLinear", name, [x, scale_name, zp or self.zp8()], out)

    def dq(self, name, x, scale_name, zp=None, out=None, **attrs):
        return self.node("DequantizeLinear", name, [x, scale_name, zp or self.zp8()], out,
                         **attrs)

    def model(self, inputs, outputs, opset=13):
        graph = helper.make_graph(self.nodes, self.name, inputs, outputs,
                                  list(self.inits.values()))
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="skeleshare tests/onnx/make_models.py")
        m.ir_version = 8
        onnx.checker.check_model(m)
        return m


def rand_weights(rng, shape):
    return rng.integers(-7, 8, size=shape, dtype=np.int64).astype(np.int8)


def rand_input(rng, shape):
    return rng.integers(-128, 128, size=shape, dtype=np.int64).astype(np.int8)


def rand_bias(rng, shape):
    return rng.integers(-512, 513, size=shape, dtype=np.int64).astype(np.int32)


def plant_tie(bias, acc, shift, lo=-512, hi=512):
    """A bias near `bias` (within [lo, hi]) such that (acc + bias) / 2**shift is exactly
    2k + 0.5 for an integer k: a tie that half-to-even rounds down to 2k and half-up
    rounds up to 2k + 1 (for acc + bias > 0, so it survives a ReLU)."""
    period = 2 ** (shift + 1)
    delta = (2 ** (shift - 1) - (int(acc) + int(bias))) % period
    if delta >= period // 2:
        delta -= period
    b = int(bias) + delta
    while b > hi:
        b -= period
    while b < lo:
        b += period
    return b


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


F, I8, I32 = TensorProto.FLOAT, TensorProto.INT8, TensorProto.INT32


# =========================================================================================
# Good models. Each builder returns (model, int8 input in ONNX layout, input scale or None
# if the graph input is already int8).
# =========================================================================================

def build_conv_qdq():
    """QDQ conv / residual add / maxpool / flatten / gemm with an int32 logits output."""
    rng = np.random.default_rng(101)
    s_x, s_w, s_a1, s_a2, s_a3 = p2(-4), p2(-6), p2(-3), p2(-2), p2(-2)
    xq = rand_input(rng, (1, 3, 8, 8))
    w1 = rand_weights(rng, (8, 3, 3, 3))
    b1 = rand_bias(rng, (8,))
    w2 = rand_weights(rng, (8, 8, 3, 3))
    wfc = rand_weights(rng, (10, 8 * 4 * 4))
    bfc = rand_bias(rng, (10,))

    # Plant differing ties in conv1's requantisation (shift log2(s_a1/(s_x*s_w)) = 7) at
    # the largest accumulator of channels 0..2.
    shift1 = int(np.log2(s_a1 / (s_x * s_w)))
    acc = conv2d(xq, w1, None, (1, 1, 1, 1))[0]
    for c in range(3):
        b1[c] = plant_tie(b1[c], acc[c].max(), shift1)

    b = Builder("conv_qdq")
    b.scale("s_x", s_x)
    b.scale("s_w", s_w)
    b.scale("s_b1", s_x * s_w)
    b.scale("s_a1", s_a1)
    b.scale("s_a2", s_a2)
    b.scale("s_a3", s_a3)
    b.scale("s_bfc", s_a3 * s_w)
    b.init("w1", w1)
    b.init("b1", b1)
    b.init("w2", w2)
    b.init("wfc", wfc)
    b.init("bfc", bfc)
    b.q("q_x", "x", "s_x")
    b.dq("dq_x", "q_x", "s_x")
    b.dq("dq_w1", "w1", "s_w")
    b.dq("dq_b1", "b1", "s_b1", b.zp32())
    b.node("Conv", "conv1", ["dq_x", "dq_w1", "dq_b1"], pads=[1, 1, 1, 1],
           kernel_shape=[3, 3])
    b.node("Relu", "relu1", ["conv1"])
    b.q("q1", "relu1", "s_a1")
    b.dq("dq1", "q1", "s_a1")                      # feeds conv2 and add1
    b.dq("dq_w2", "w2", "s_w")
    b.node("Conv", "conv2", ["dq1", "dq_w2"], pads=[1, 1, 1, 1], kernel_shape=[3, 3])
    b.q("q2", "conv2", "s_a1")
    b.dq("dq2", "q2", "s_a1")
    b.node("Add", "add1", ["dq1", "dq2"])
    b.q("q3", "add1", "s_a2")
    b.dq("dq3", "q3", "s_a2")
    b.node("MaxPool", "pool1", ["dq3"], kernel_shape=[2, 2], strides=[2, 2])
    b.q("q4", "pool1", "s_a3")
    b.dq("dq4", "q4", "s_a3")
    b.node("Flatten", "flat1", ["dq4"], axis=1)     # [1,8,4,4] -> [1,128], channel-major
    b.dq("dq_wfc", "wfc", "s_w")
    b.dq("dq_bfc", "bfc", "s_bfc", b.zp32())
    # The float logits are the graph output: an int32 QuantizeLinear is only valid from
    # opset 21. Their integer is the accumulator, y / 2^-8 exactly (output_scale below).
    b.node("Gemm", "fc1", ["flat1", "dq_wfc", "dq_bfc"], out="y", transB=1)
    m = b.model([vi("x", F, [1, 3, 8, 8])], [vi("y", F, [1, 10])])
    onnx.helper.set_model_props(m, {"output_scale": repr(p2(-8))})
    return m, xq, s_x


def build_conv_qlinear():
    """QLinear conv: Pad node, QLinearConv with bias, int8 Relu, MaxPool, QLinearConv."""
    rng = np.random.default_rng(202)
    s_x, s_w, s_a1, s_a2 = p2(-4), p2(-6), p2(-3), p2(-2)
    xq = rand_input(rng, (1, 3, 8, 8))
    w1 = rand_weights(rng, (8, 3, 3, 3))
    b1 = rand_bias(rng, (8,))
    w2 = rand_weights(rng, (8, 8, 3, 3))

    shift1 = int(np.log2(s_a1 / (s_x * s_w)))
    acc = conv2d(xq, w1, None, (1, 1, 1, 1))[0]
    for c in range(3):
        b1[c] = plant_tie(b1[c], acc[c].max(), shift1)

    b = Builder("conv_qlinear")
    b.scale("s_x", s_x)
    b.scale("s_w", s_w)
    b.scale("s_a1", s_a1)
    b.scale("s_a2", s_a2)
    b.init("w1", w1)
    b.init("b1", b1)
    b.init("w2", w2)
    b.init("pads1", np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64))  # N,C,H,W begins; ends
    zp = b.zp8()
    b.node("Pad", "pad1", ["x_q", "pads1"], mode="constant")       # constant_value: 0
    b.node("QLinearConv", "qconv1",
           ["pad1", "s_x", zp, "w1", "s_w", zp, "s_a1", zp, "b1"], kernel_shape=[3, 3])
    b.node("Relu", "relu1", ["qconv1"])
    b.node("MaxPool", "pool1", ["relu1"], kernel_shape=[2, 2], strides=[2, 2])
    b.node("QLinearConv", "qconv2",
           ["pool1", "s_a1", zp, "w2", "s_w", zp, "s_a2", zp], out="y", kernel_shape=[3, 3],
           pads=[1, 1, 1, 1])
    m = b.model([vi("x_q", I8, [1, 3, 8, 8])], [vi("y", I8, [1, 8, 4, 4])], opset=14)
    return m, xq, None


def build_mlp_qdq():
    """QDQ Gemm(transB) + bias, Relu, MatMul (weights [K][N], not transposed)."""
    rng = np.random.default_rng(303)
    s_x, s_w, s_a1, s_y = p2(-4), p2(-6), p2(-3), p2(-3)
    xq = rand_input(rng, (1, 64))
    w1 = rand_weights(rng, (32, 64))
    b1 = rand_bias(rng, (32,))
    w2 = rand_weights(rng, (32, 10))

    shift1 = int(np.log2(s_a1 / (s_x * s_w)))
    acc = (w1.astype(np.int64) @ xq[0].astype(np.int64))
    for j in np.argsort(-acc)[:3]:                 # the three largest accumulators
        b1[j] = plant_tie(b1[j], acc[j], shift1)

    b = Builder("mlp_qdq")
    b.scale("s_x", s_x)
    b.scale("s_w", s_w)
    b.scale("s_b1", s_x * s_w)
    b.scale("s_a1", s_a1)
    b.scale("s_y", s_y)
    b.init("w1", w1)
    b.init("b1", b1)
    b.init("w2", w2)
    b.q("q_x", "x", "s_x")
    b.dq("dq_x", "q_x", "s_x")
    b.dq("dq_w1", "w1", "s_w")
    b.dq("dq_b1", "b1", "s_b1", b.zp32())
    b.node("Gemm", "fc1", ["dq_x", "dq_w1", "dq_b1"], transB=1)
    b.node("Relu", "relu1", ["fc1"])
    b.q("q1", "relu1", "s_a1")
    b.dq("dq1", "q1", "s_a1")
    b.dq("dq_w2", "w2", "s_w")
    b.node("MatMul", "mm2", ["dq1", "dq_w2"])
    b.q("q_out", "mm2", "s_y", out="y")
    m = b.model([vi("x", F, [1, 64])], [vi("y", I8, [1, 10])])
    return m, xq, s_x


def build_mlp_qlinear():
    """QLinearMatMul [64,32], int8 Relu, QLinearMatMul [32,10]."""
    rng = np.random.default_rng(404)
    s_x, s_w, s_a1, s_y = p2(-4), p2(-6), p2(-3), p2(-3)
    xq = rand_input(rng, (1, 64))
    w1 = rand_weights(rng, (64, 32))
    w2 = rand_weights(rng, (32, 10))

    b = Builder("mlp_qlinear")
    b.scale("s_x", s_x)
    b.scale("s_w", s_w)
    b.scale("s_a1", s_a1)
    b.scale("s_y", s_y)
    b.init("w1", w1)
    b.init("w2", w2)
    zp = b.zp8()
    b.node("QLinearMatMul", "qmm1", ["x_q", "s_x", zp, "w1", "s_w", zp, "s_a1", zp])
    b.node("Relu", "relu1", ["qmm1"])
    b.node("QLinearMatMul", "qmm2", ["relu1", "s_a1", zp, "w2", "s_w", zp, "s_y", zp],
           out="y")
    m = b.model([vi("x_q", I8, [1, 64])], [vi("y", I8, [1, 10])], opset=14)
    return m, xq, None


# VGG-16 for CIFAR, as benchmarks/vgg_cifar.dsl: output channels, requant shift, and
# whether a 2x2 max pool follows.
VGG_LAYERS = [
    (64, 6, False), (64, 6, True),
    (128, 7, False), (128, 7, True),
    (256, 7, False), (256, 7, False), (256, 7, True),
    (512, 7, False), (512, 8, False), (512, 7, True),
    (512, 8, False), (512, 7, False), (512, 7, True),
]


def build_vgg_qdq():
    """VGG-16 for CIFAR in QDQ form. All activations have scale 2^-4; conv i's weights
    have scale 2^-s_i, so its requant shift log2(s_out) - log2(s_in) - log2(s_w) = s_i."""
    rng = np.random.default_rng(505)
    s_a = p2(-4)
    s_wfc = p2(-6)
    b = Builder("vgg_qdq")
    b.scale("s_a", s_a)
    b.scale("s_wfc", s_wfc)
    # the logits scale is s_a * s_wfc = 2^-10 (output_scale in the model's props)
    b.q("q_x", "x", "s_a")
    cur = b.dq("dq_x", "q_x", "s_a")
    ich, pool_no = 3, 0
    for i, (och, shift, pool) in enumerate(VGG_LAYERS, start=1):
        b.init("w%d" % i, rand_weights(rng, (och, ich, 3, 3)))
        b.scale("s_w%d" % i, p2(-shift))
        b.dq("dq_w%d" % i, "w%d" % i, "s_w%d" % i)
        b.node("Conv", "conv%d" % i, [cur, "dq_w%d" % i], pads=[1, 1, 1, 1],
               kernel_shape=[3, 3])
        b.node("Relu", "relu%d" % i, ["conv%d" % i])
        b.q("q%d" % i, "relu%d" % i, "s_a")
        cur = b.dq("dq%d" % i, "q%d" % i, "s_a")
        if pool:
            pool_no += 1
            b.node("MaxPool", "pool%d" % pool_no, [cur], kernel_shape=[2, 2], strides=[2, 2])
            b.q("q_p%d" % pool_no, "pool%d" % pool_no, "s_a")
            cur = b.dq("dq_p%d" % pool_no, "q_p%d" % pool_no, "s_a")
        ich = och
    b.node("Flatten", "flat1", [cur], axis=1)        # [1,512,1,1] -> [1,512]
    b.init("wfc", rand_weights(rng, (10, 512)))
    b.dq("dq_wfc", "wfc", "s_wfc")
    b.node("Gemm", "fc1", ["flat1", "dq_wfc"], out="y", transB=1)  # float logits, see build_conv_qdq
    m = b.model([vi("x", F, [1, 3, 32, 32])], [vi("y", F, [1, 10])])
    onnx.helper.set_model_props(m, {"output_scale": repr(p2(-10))})
    xq = rand_input(rng, (1, 3, 32, 32))
    return m, xq, s_a


# name -> (builder, write input/expected files?, assert differing ties > 0?). vgg_qdq is
# evaluated for its statistics only: the DSL side would be slow to simulate.
def build_misc_qdq():
    """The less common forms: a scale from a Constant node, a Pad with a non-zero float
    value (-0.5 on a 2^-4 scale: fill -8), a 3x3 MaxPool of stride 1, a QuantizeLinear to a
    finer scale than its input's (a multiplication), an Add of two scales, a Reshape to
    [1, -1] of an NCHW image, and a Gemm whose weights are [K][N] (transB = 0)."""
    rng = np.random.default_rng(808)
    s_x, s_w, s_a, s_fine, s_sum, s_y = p2(-4), p2(-6), p2(-2), p2(-3), p2(-2), p2(-3)
    xq = rand_input(rng, (1, 2, 6, 6))
    w1 = rand_weights(rng, (4, 2, 3, 3))
    wfc = rand_weights(rng, (64, 10))
    b = Builder("misc_qdq")
    b.scale("s_x", s_x)
    b.scale("s_w", s_w)
    b.scale("s_fine", s_fine)
    b.scale("s_sum", s_sum)
    b.scale("s_y", s_y)
    b.init("w1", w1)
    b.init("wfc", wfc)
    b.init("pads1", np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64))
    b.init("pad_value", np.array(-0.5, np.float32))
    b.init("flat_shape", np.array([1, -1], np.int64))
    b.nodes.append(helper.make_node("Constant", [], ["c_s_a"], name="c_s_a",
                                    value=numpy_helper.from_array(np.array(s_a, np.float32))))
    b.q("q_x", "x", "s_x")
    b.dq("dq_x", "q_x", "s_x")
    b.node("Pad", "pad1", ["dq_x", "pads1", "pad_value"], mode="constant")
    b.dq("dq_w1", "w1", "s_w")
    b.node("Conv", "conv1", ["pad1", "dq_w1"], kernel_shape=[3, 3])
    b.q("q1", "conv1", "c_s_a")                     # shift 8
    b.dq("dq1", "q1", "c_s_a")
    b.node("MaxPool", "pool1", ["dq1"], kernel_shape=[3, 3], strides=[1, 1])
    b.q("q2", "pool1", "s_fine")                    # finer scale: times 2, saturating
    b.dq("dq2", "q2", "s_fine")
    b.q("q3", "pool1", "c_s_a")                     # the same value on its own scale
    b.dq("dq3", "q3", "c_s_a")
    b.node("Add", "add1", ["dq2", "dq3"])           # scales 2^-3 and 2^-2
    b.q("q4", "add1", "s_sum")
    b.dq("dq4", "q4", "s_sum")
    b.node("Reshape", "flat1", ["dq4", "flat_shape"])
    b.dq("dq_wfc", "wfc", "s_w")
    b.node("Gemm", "fc1", ["flat1", "dq_wfc"])      # transB = 0: weights [64][10]
    b.q("q_out", "fc1", "s_y", out="y")
    m = b.model([vi("x", F, [1, 2, 6, 6])], [vi("y", I8, [1, 10])])
    return m, xq, s_x


GOOD = {
    "conv_qdq": (build_conv_qdq, True, True),
    "conv_qlinear": (build_conv_qlinear, True, False),
    "mlp_qdq": (build_mlp_qdq, True, True),
    "mlp_qlinear": (build_mlp_qlinear, True, False),
    "vgg_qdq": (build_vgg_qdq, False, False),
    "misc_qdq": (build_misc_qdq, True, False),
}


# =========================================================================================
# Bad models: each is valid ONNX and well-formed except for the one thing the importer
# must reject. All start from the same small QDQ conv (x [1,3,8,8] -> Q -> DQ -> Conv ->
# Relu -> Q).
# =========================================================================================

def small_qdq_conv(name, conv_name="conv1", strides=(1, 1),
                   w_scale=None, q_name="q1", q_scale=("s_a1", p2(-3)), q_zp=None):
    """The common small QDQ conv; the keyword arguments inject the defect."""
    rng = np.random.default_rng(606)
    b = Builder(name)
    b.scale("s_x", p2(-4))
    b.init("w1", rand_weights(rng, (8, 3, 3, 3)))
    b.q("q_x", "x", "s_x")
    b.dq("dq_x", "q_x", "s_x")
    if w_scale is None:
        b.scale("s_w", p2(-6))
        b.dq("dq_w1", "w1", "s_w")
    else:                                           # per-channel weight scales
        b.init("s_w", np.asarray(w_scale, np.float32))
        b.init("zp_w", np.zeros(len(w_scale), np.int8))
        b.dq("dq_w1", "w1", "s_w", "zp_w", axis=0)
    b.node("Conv", conv_name, ["dq_x", "dq_w1"], pads=[1, 1, 1, 1], kernel_shape=[3, 3],
           strides=list(strides))
    b.node("Relu", "relu1", [conv_name])
    b.scale(*q_scale)
    zp = None if q_zp is None else b.init("zp_q", np.array(q_zp, np.int8))
    b.q(q_name, "relu1", q_scale[0], zp)
    return b


def build_bad():
    """Returns {name: (model, manifest entry)}."""
    bad = {}

    b = small_qdq_conv("bad_op")
    b.dq("dq1", "q1", "s_a1")
    b.node("Softmax", "softmax1", ["dq1"], out="y", axis=1)
    bad["bad_op"] = (b.model([vi("x", F, [1, 3, 8, 8])], [vi("y", F, [1, 8, 8, 8])]),
                     {"node": "softmax1", "op": "Softmax", "why": "unsupported operator"})

    b = small_qdq_conv("bad_dynamic")
    b.dq("dq1", "q1", "s_a1", out="y")
    bad["bad_dynamic"] = (
        b.model([vi("x", F, ["N", 3, 8, 8])], [vi("y", F, ["N", 8, 8, 8])]),
        {"node": "x", "op": None, "why": "symbolic dimension N in graph input x"})

    rng = np.random.default_rng(707)
    b = Builder("bad_float")
    b.init("w1", rng.standard_normal((8, 3, 3, 3)).astype(np.float32))
    b.node("Conv", "conv1", ["x", "w1"], pads=[1, 1, 1, 1], kernel_shape=[3, 3])
    b.node("Relu", "relu1", ["conv1"], out="y")
    bad["bad_float"] = (b.model([vi("x", F, [1, 3, 8, 8])], [vi("y", F, [1, 8, 8, 8])]),
                        {"node": "conv1", "op": "Conv",
                         "why": "float model: float weights, no Quantize/DequantizeLinear"})

    b = small_qdq_conv("bad_stride", conv_name="conv_s2", strides=(2, 2))
    b.dq("dq1", "q1", "s_a1", out="y")
    bad["bad_stride"] = (b.model([vi("x", F, [1, 3, 8, 8])], [vi("y", F, [1, 8, 4, 4])]),
                         {"node": "conv_s2", "op": "Conv", "why": "stride 2 not supported"})

    b = small_qdq_conv("bad_zero_point", q_name="q_zp", q_zp=3)
    b.dq("dq1", "q_zp", "s_a1", "zp_q", out="y")
    bad["bad_zero_point"] = (
        b.model([vi("x", F, [1, 3, 8, 8])], [vi("y", F, [1, 8, 8, 8])]),
        {"node": "q_zp", "op": "QuantizeLinear", "why": "non-zero zero point 3"})

    b = small_qdq_conv("bad_scale", q_name="q_scale", q_scale=("act_scale", 0.3))
    b.dq("dq1", "q_scale", "act_scale", out="y")
    bad["bad_scale"] = (
        b.model([vi("x", F, [1, 3, 8, 8])], [vi("y", F, [1, 8, 8, 8])]),
        {"node": "q_scale", "op": "QuantizeLinear",
         "why": "scale 0.3 (act_scale) is not a power of two"})

    b = small_qdq_conv("bad_per_channel", w_scale=[p2(-k) for k in (5, 6, 7, 6, 5, 8, 6, 7)])
    b.dq("dq1", "q1", "s_a1", out="y")
    bad["bad_per_channel"] = (
        b.model([vi("x", F, [1, 3, 8, 8])], [vi("y", F, [1, 8, 8, 8])]),
        {"node": "dq_w1", "op": "DequantizeLinear",
         "why": "per-channel weight scales (axis 0), different per channel"})
    return bad


# =========================================================================================
# Driver
# =========================================================================================

def scales_of(model):
    """Every float scalar initializer whose name starts with s_ (plus act_scale)."""
    out = {}
    for init in model.graph.initializer:
        arr = numpy_helper.to_array(init)
        if arr.dtype.kind == "f" and (init.name.startswith("s_") or init.name == "act_scale"):
            out[init.name] = arr.tolist()
    return out


def report(name, log, must_tie):
    """Prints the quantisation statistics; asserts the good-model thresholds."""
    total_ties = sum(e["ties"] for e in log)
    total_diff = sum(e["differing_ties"] for e in log)
    for e in log:
        sys.stderr.write("  %-8s %-5s n=%-6d nonzero %5.1f%%  saturated %5.1f%%  ties %d "
                         "(differing %d)\n" % (e["node"], e["dtype"], e["size"],
                                              100 * e["nonzero"], 100 * e["saturated"],
                                              e["ties"], e["differing_ties"]))
        if e["dtype"] == "int8":
            assert e["nonzero"] >= MIN_NONZERO, "%s/%s: too few non-zero" % (name, e["node"])
            assert e["saturated"] <= MAX_SATURATED, "%s/%s: saturates" % (name, e["node"])
    sys.stderr.write("  %s: %d ties, %d differing (half-even vs half-up)\n"
                     % (name, total_ties, total_diff))
    if must_tie:
        assert total_diff > 0, name + ": no rounding tie that half-up would round differently"


def run_good(name, outdir, write_files, must_tie):
    """Builds, saves and evaluates one good model; returns (manifest entry, model)."""
    builder, _, _ = GOOD[name]
    model, xq, in_scale = builder()
    onnx.save(model, os.path.join(outdir, name + ".onnx"))
    entry = {"onnx": name + ".onnx", "input": None, "expected": None, "output_scale": None}
    feed = xq if in_scale is None else xq.astype(np.float64) * in_scale
    log = []
    t = time.time()
    env = evaluate(model, {model.graph.input[0].name: feed}, log)
    sys.stderr.write("%s (evaluated in %.1fs)\n" % (name, time.time() - t))
    report(name, log, must_tie)
    q, scale = integer_output(model, env)
    assert q.dtype in (np.int8, np.int32), q.dtype
    entry["output_scale"] = scale
    if write_files:
        np.save(os.path.join(outdir, name + ".input.npy"), to_dsl(xq))
        np.save(os.path.join(outdir, name + ".expected.npy"), to_dsl(q))
        entry["input"] = name + ".input.npy"
        entry["expected"] = name + ".expected.npy"
    return entry, model


def main(outdir):
    t0 = time.time()
    os.makedirs(outdir, exist_ok=True)
    manifest = {"models": {}, "bad": {}}
    summary = []
    for name, (_, write_files, must_tie) in GOOD.items():
        entry, model = run_good(name, outdir, write_files, must_tie)
        manifest["models"][name] = entry
        summary.append("%-16s opset %d  %3d nodes  output_scale %s  scales %s"
                       % (name, model.opset_import[0].version, len(model.graph.node),
                          entry["output_scale"], scales_of(model)))
    for name, (model, entry) in build_bad().items():
        onnx.save(model, os.path.join(outdir, name + ".onnx"))
        manifest["bad"][name] = dict({"onnx": name + ".onnx"}, **entry)
        summary.append("%-16s opset %d  %3d nodes  rejects %s (%s): %s"
                       % (name, model.opset_import[0].version, len(model.graph.node),
                          entry["node"], entry["op"], entry["why"]))
    with open(os.path.join(outdir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    # Re-read everything from disk: the saved files must pass the checker too.
    for name in list(manifest["models"]) + list(manifest["bad"]):
        onnx.checker.check_model(onnx.load(os.path.join(outdir, name + ".onnx")))
    print("\n".join(summary))
    print("wrote %d models to %s in %.1fs"
          % (len(manifest["models"]) + len(manifest["bad"]), outdir, time.time() - t0))


# =========================================================================================
# Self-test of the evaluator
# =========================================================================================

def self_test():
    zp8 = np.array(0, np.int8)
    # QuantizeLinear rounds half to even and saturates.
    q = quantize(np.array([2.5, 3.5, -2.5, -3.5, 0.5, 1.5, 200.0, -200.0]), 1.0, zp8)
    assert q.tolist() == [2, 4, -2, -4, 0, 2, 127, -128], q
    assert q.dtype == np.int8
    assert quantize(np.array([5.0]), 2.0, zp8).tolist() == [2]        # 2.5 -> 2
    assert quantize(np.array([7.0]), 2.0, zp8).tolist() == [4]        # 3.5 -> 4
    q32 = quantize(np.array([1e6, -3.0]), 0.5, np.array(0, np.int32))
    assert q32.dtype == np.int32 and q32.tolist() == [2000000, -6]
    assert quantize(np.array([1.0]), 1.0, np.array(3, np.int8)).tolist() == [4]
    # DequantizeLinear, also per-axis.
    assert dequantize(np.array([4], np.int8), 0.25, np.array(2, np.int8)).tolist() == [0.5]
    d = dequantize(np.ones((2, 3), np.int8), np.array([1.0, 0.5]), np.zeros(2, np.int8), axis=0)
    assert d.tolist() == [[1, 1, 1], [0.5, 0.5, 0.5]]
    # Conv against a direct loop (pads, stride, bias).
    rng = np.random.default_rng(1)
    x = rng.integers(-5, 6, (1, 2, 5, 6)).astype(np.float64)
    w = rng.integers(-3, 4, (3, 2, 3, 3)).astype(np.float64)
    bias = np.array([1.0, -2.0, 3.0])
    for pads, strides in (((1, 1, 1, 1), (1, 1)), ((0, 1, 2, 0), (2, 1))):
        got = conv2d(x, w, bias, pads, strides)
        xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
        oh = (xp.shape[2] - 3) // strides[0] + 1
        ow = (xp.shape[3] - 3) // strides[1] + 1
        ref = np.zeros((1, 3, oh, ow))
        for o in range(3):
            for i in range(oh):
                for j in range(ow):
                    r, c = i * strides[0], j * strides[1]
                    ref[0, o, i, j] = np.sum(xp[0, :, r:r + 3, c:c + 3] * w[o]) + bias[o]
        assert np.array_equal(got, ref), (pads, strides)
    # MaxPool keeps int8; Flatten of NCHW is channel-major.
    xi = np.arange(32, dtype=np.int8).reshape(1, 2, 4, 4)
    assert maxpool2d(xi, (2, 2), (2, 2)).tolist() == [[[[5, 7], [13, 15]], [[21, 23], [29, 31]]]]
    assert _op_flatten(None, {"axis": 1}, None, xi)[0, :3].tolist() == [0, 1, 2]
    # Layout conversion.
    assert to_dsl(xi).shape == (4, 4, 2) and to_dsl(xi)[0, 1].tolist() == [1, 17]
    # QLinearConv: the int32 bias has scale x_scale * w_scale.
    node = helper.make_node("QLinearConv", ["x"] * 9, ["y"], name="t")
    y = _op_qlinear_conv(node, {}, None, np.full((1, 1, 1, 1), 3, np.int8), 0.5, zp8,
                         np.full((1, 1, 1, 1), 2, np.int8), 0.25, zp8, 0.125, zp8,
                         np.array([1], np.int32))
    # (3*0.5)*(2*0.25) + 1*0.125 = 0.875 -> 0.875/0.125 = 7
    assert y.tolist() == [[[[7]]]], y
    # plant_tie gives a tie that half-to-even rounds down.
    for acc in (-1000, 0, 37, 5000):
        bb = plant_tie(100, acc, 7)
        r = (acc + bb) / 128.0
        assert -512 <= bb <= 512 and r - np.floor(r) == 0.5 and np.rint(r) != np.floor(r + 0.5)
    print("self-test passed")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args == ["--self-test"]:
        self_test()
    elif len(args) == 1 and not args[0].startswith("-"):
        main(args[0])
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)
