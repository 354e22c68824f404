// Speed of the interpreter on VGG-CIFAR (313M MACs; benchmarks/vgg_cifar.dsl built
// directly with builders.h), and agreement of fast and generic paths at that scale.
// Times are printed, not asserted: they depend on the machine and the build type.

#include <chrono>
#include <cstdio>

#include "interpreter_test_util.h"

using namespace skeleshare;
using namespace skeleshare::ir;
using namespace skeleshare::ir::testing;

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

struct Vgg {
  Context ctx;
  Inputs inputs;
  const Term* out = nullptr;
  const Type* i8 = ctx.intType(8);

  /// relu(requant(conv(pad(x, 1), w), shift))
  const Term* layer(const Term* x, int idx, int64_t o, int64_t shift) {
    const int64_t c = x->type()->shape()[2];
    const Term* wt = addInput(ctx, inputs, "w" + std::to_string(idx),
                              rng::randomTensor(1, "w" + std::to_string(idx), 8, {o, 3, 3, c}, rng::Role::Weight));
    const Term* padded = ctx.op(Op::Pad, {x}, {1, 1, 1, 1, 0});
    const Term* conv = ctx.op(Op::Conv, {padded, wt, cMvF(ctx, o, 9 * c, i8, i8)});
    return ctx.op(Op::Relu, {ctx.op(Op::Requant, {conv}, {shift})});
  }

  Vgg() {
    const Term* x = addInput(ctx, inputs, "image", rng::randomTensor(1, "image", 8, {32, 32, 3}, rng::Role::Input));
    const int64_t och[] = {64, 64, 128, 128, 256, 256, 256, 512, 512, 512, 512, 512, 512};
    const int64_t shift[] = {6, 5, 5, 6, 5, 6, 5, 6, 5, 6, 5, 6, 5};
    const bool poolAfter[] = {false, true, false, true, false, false, true, false, false, true, false, false, true};
    for (int i = 0; i < 13; ++i) {
      x = layer(x, i + 1, och[i], shift[i]);
      if (poolAfter[i]) x = ctx.op(Op::MaxPool, {x}, {2, 2});
    }
    const Term* fc = addInput(ctx, inputs, "fc", rng::randomTensor(1, "fc", 8, {10, 512}, rng::Role::Weight));
    out = ctx.op(Op::Mv, {fc, ctx.op(Op::Flatten, {x}), dotF(ctx, 10, 512, i8, i8, 10)});
  }
};

TEST(InterpreterPerf, VggConvLayer) {
  // Conv(in: i8[34][34][64], wgt: i8[64][3][3][64], cMvF[64, 576]): 37.7M MACs.
  Context ctx;
  Inputs in;
  const Type* i8 = ctx.intType(8);
  const Term* x = addInput(ctx, in, "x", rng::randomTensor(1, "x", 8, {34, 34, 64}, rng::Role::Input));
  const Term* w = addInput(ctx, in, "w", rng::randomTensor(1, "w", 8, {64, 3, 3, 64}, rng::Role::Weight));
  const Term* conv = ctx.op(Op::Conv, {x, w, cMvF(ctx, 64, 576, i8, i8)});
  auto t0 = Clock::now();
  Tensor fast = evalTensor(ctx, conv, in, true);
  const double tf = seconds(t0);
  t0 = Clock::now();
  Tensor slow = evalTensor(ctx, conv, in, false);
  const double ts = seconds(t0);
  EXPECT_EQ(fast, slow);
  std::printf("VGG conv layer 34x34x64 -> 32x32x64 (37.7M MACs): fast %.3f s, generic %.3f s\n", tf, ts);
}

TEST(InterpreterPerf, VggCifarStack) {
  Vgg v;
  auto t0 = Clock::now();
  Interpreter fastInterp(v.ctx, v.inputs);
  Tensor fast = fastInterp.evaluate(v.out).tensor();
  const double tf = seconds(t0);
  EXPECT_EQ(fastInterp.stats().fastPaths, 14u);  // 13 convs and the classifier
  t0 = Clock::now();
  Tensor slow = evalTensor(v.ctx, v.out, v.inputs, false);
  const double ts = seconds(t0);
  EXPECT_EQ(fast, slow);
  EXPECT_EQ(fast.describe(), "i32[10]");
  std::printf("VGG-CIFAR, 13 convs + FC (313M MACs): fast %.3f s, generic %.3f s\n", tf, ts);
}

}  // namespace
