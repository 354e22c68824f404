// Independent cross-check: the interpreter's results on random inputs are recomputed by
// NumPy (tests/numpy/check_interpreter.py) from docs/ir.md's definitions.

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "interpreter_test_util.h"
#include "skeleshare/support/npy.h"

using namespace skeleshare;
using namespace skeleshare::ir;
using namespace skeleshare::ir::testing;
namespace fs = std::filesystem;

namespace {

const char* kPython = "/usr/bin/python3";  // Debian's python3-numpy belongs to this one

struct Case {
  std::string name, op;
  std::vector<int64_t> params;
  std::vector<Tensor> inputs;
  const Term* term;
};

class NumpyCrossCheck : public ::testing::Test {
 protected:
  Context ctx;
  std::vector<Case> cases;
  uint64_t seed = 2026;

  /// A random input: full range of its width when `full`, else the generator's default.
  const Term* in(Case& c, const Shape& shape, int bits, bool full, Inputs& inputs, rng::Role role = rng::Role::Input) {
    std::string name = c.name + "_in" + std::to_string(c.inputs.size());
    Tensor t = full ? fullRange(seed, name, bits, shape) : rng::randomTensor(seed, name, bits, shape, role);
    c.inputs.push_back(t);
    return addInput(ctx, inputs, name, t);
  }
};

TEST_F(NumpyCrossCheck, InterpreterAgreesWithNumpy) {
  if (std::system((std::string(kPython) + " -c 'import numpy' 2>/dev/null").c_str()) != 0)
    FAIL() << kPython << " has no numpy (the set-up installs python3-numpy)";
  Inputs inputs;
  const Type *i8 = ctx.intType(8), *i16 = ctx.intType(16), *i32 = ctx.intType(32);
  auto add = [&](std::string name, std::string op, std::vector<int64_t> params) -> Case& {
    cases.push_back(Case{std::move(name), std::move(op), std::move(params), {}, nullptr});
    return cases.back();
  };
  // Convolutions: a VGG-like i8 layer, and i16 / i32 ones whose sums wrap.
  struct ConvSpec {
    int64_t h, w, c, o, ks;
    int bits;
    bool full;
  };
  for (const ConvSpec& s : {ConvSpec{10, 9, 16, 8, 3, 8, true}, ConvSpec{6, 7, 5, 4, 2, 16, true},
                            ConvSpec{5, 5, 3, 3, 3, 32, true}, ConvSpec{4, 6, 2, 5, 1, 8, false}}) {
    Case& c = add("conv" + std::to_string(cases.size()), "conv", {});
    const Type* t = ctx.intType(s.bits);
    const Term* x = in(c, {s.h, s.w, s.c}, s.bits, s.full, inputs);
    const Term* w = in(c, {s.o, s.ks, s.ks, s.c}, s.bits, s.full, inputs, rng::Role::Weight);
    c.term = ctx.op(Op::Conv, {x, w, cMvF(ctx, s.o, s.ks * s.ks * s.c, t, t)});
  }
  {
    Case& c = add("mv", "mv", {});
    const Term* m = in(c, {9, 13}, 16, true, inputs);
    const Term* v = in(c, {13}, 8, true, inputs);
    c.term = ctx.op(Op::Mv, {m, v, dotF(ctx, 9, 13, i16, i8, 3)});
  }
  {
    Case& c = add("mm", "mm", {});
    const Term* a = in(c, {5, 7}, 32, true, inputs);
    const Term* b = in(c, {6, 7}, 32, true, inputs);
    c.term = ctx.op(Op::Mm, {a, b, cMvF(ctx, 6, 7, i32, i32)});
  }
  {
    Case& c = add("conv1d_w", "conv1d_w", {});
    const Term* img = in(c, {6, 9}, 16, true, inputs);
    const Term* w = in(c, {3}, 16, true, inputs);
    c.term = ctx.op(Op::Conv1DW, {img, w, cMvF(ctx, 7, 3, i16, i16)});
  }
  {
    Case& c = add("conv1d_h", "conv1d_h", {});
    const Term* img = in(c, {8, 5}, 8, true, inputs);
    const Term* w = in(c, {4}, 8, true, inputs);
    c.term = ctx.op(Op::Conv1DH, {img, w, cMvF(ctx, 5, 4, i8, i8)});
  }
  for (int64_t s : {0, 1, 5, 31}) {
    Case& c = add("requant" + std::to_string(s), "requant", {s});
    const Term* x = in(c, {4, 50}, 32, true, inputs);
    c.term = ctx.op(Op::Requant, {x}, {s});
  }
  {
    // A VGG block: Requant[6](Relu(Bias(Conv(x, w), b))), then MaxPool[2, 2].
    Case& c = add("block", "conv_block", {6});
    const Term* x = in(c, {10, 10, 8}, 8, false, inputs);
    const Term* w = in(c, {16, 3, 3, 8}, 8, false, inputs, rng::Role::Weight);
    const Term* b = in(c, {16}, 32, false, inputs, rng::Role::Weight);
    const Term* conv = ctx.op(Op::Conv, {x, w, cMvF(ctx, 16, 72, i8, i8)});
    const Term* act = ctx.op(Op::Requant, {ctx.op(Op::Relu, {ctx.op(Op::Bias, {conv, b})})}, {6});
    c.term = ctx.op(Op::MaxPool, {act}, {2, 2});
  }

  fs::path dir = fs::path(SKELESHARE_BINARY_DIR) / "test-scratch" / "interpreter_numpy";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream list(dir / "cases.txt");
  for (const Case& c : cases) {
    Tensor out = evalBoth(ctx, c.term, inputs);
    if (c.op == "conv_block") {
      // The requantised block must be interesting: neither all zero nor all saturated.
      size_t zeros = 0, saturated = 0;
      for (int32_t v : out.values()) zeros += v == 0, saturated += v == 127;
      EXPECT_LT(zeros, out.size() / 2);
      EXPECT_LT(saturated, out.size() / 2);
    }
    for (size_t i = 0; i < c.inputs.size(); ++i)
      writeNpy((dir / (c.name + "_in" + std::to_string(i) + ".npy")).string(), c.inputs[i]);
    writeNpy((dir / (c.name + "_out.npy")).string(), out);
    list << c.name << " " << c.op;
    for (int64_t p : c.params) list << " " << p;
    list << "\n";
  }
  list.close();
  const std::string cmd = std::string(kPython) + " " + SKELESHARE_SOURCE_DIR + "/tests/numpy/check_interpreter.py " + dir.string();
  EXPECT_EQ(std::system(cmd.c_str()), 0) << "NumPy disagrees; see the script's output above";
}

}  // namespace
