#include <gtest/gtest.h>

#include "skeleshare/ir/builders.h"
#include "skeleshare/ir/context.h"

using namespace skeleshare::ir;

TEST(Context, TypesAreHashConsed) {
  Context ctx;
  const Type* i8 = ctx.intType(8);
  EXPECT_EQ(ctx.arrayType(4, i8), ctx.arrayType(4, i8));
  EXPECT_NE(ctx.arrayType(4, i8), ctx.arrayType(5, i8));
  const int64_t shape[] = {64, 3, 3, 3};
  EXPECT_EQ(ctx.tensorType(shape, i8)->str(), "i8[64][3][3][3]");
  EXPECT_EQ(ctx.funType(i8, ctx.intType(32))->str(), "(i8 -> i32)");
}

TEST(Context, TermsAreHashConsedAndTyped) {
  Context ctx;
  const Type* i8 = ctx.intType(8);
  const int64_t inShape[] = {34, 34, 3}, wShape[] = {64, 3, 3, 3};
  const Term* in = ctx.input("image", ctx.tensorType(inShape, i8));
  const Term* w = ctx.input("w1", ctx.tensorType(wShape, i8));
  const Term* conv1 = ctx.op(Op::Conv, {in, w, cMvF(ctx, 64, 27, i8, i8)});
  const Term* conv2 = ctx.op(Op::Conv, {in, w, cMvF(ctx, 64, 27, i8, i8)});
  EXPECT_EQ(conv1, conv2);
  EXPECT_EQ(conv1->type()->str(), "i32[32][32][64]");
  EXPECT_TRUE(conv1->closed());
  // The canonical function of a conv is the same term however it is built.
  EXPECT_EQ(cConvF(ctx, 34, 34, 3, 64, 3, i8, i8)->child(0)->child(0)->child(2), cMvF(ctx, 64, 27, i8, i8));
}

TEST(Context, TypeErrorsAreReported) {
  Context ctx;
  const Type* i8 = ctx.intType(8);
  const int64_t inShape[] = {8, 8, 4}, wShape[] = {16, 3, 3, 3};
  const Term* in = ctx.input("x", ctx.tensorType(inShape, i8));
  const Term* w = ctx.input("w", ctx.tensorType(wShape, i8));
  std::string err;
  const Term* kids[] = {in, w, cMvF(ctx, 16, 27, i8, i8)};
  EXPECT_EQ(ctx.tryMake(Op::Conv, {}, nullptr, kids, err), nullptr);
  EXPECT_NE(err.find("weights expect 3 input channels, input has 4"), std::string::npos) << err;
}

TEST(Context, FreeVariables) {
  Context ctx;
  const Type* i8 = ctx.intType(8);
  const Term* v1 = ctx.var(1, i8);
  EXPECT_EQ(v1->freeBound(), 2u);
  EXPECT_EQ(ctx.lam(i8, v1)->freeBound(), 1u);
  EXPECT_TRUE(ctx.lam2(i8, i8, v1)->closed());
}
