// The compile pipeline as a library: saturate -> extract -> outline -> lower -> emit, its
// report, its output files, and its answers to bad options and impossible budgets.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "../common/dsl_module.h"
#include "skeleshare/driver/driver.h"

namespace skeleshare::driver {
namespace {

std::string bench(const std::string& name) { return std::string(SKELESHARE_SOURCE_DIR) + "/benchmarks/small/" + name; }

CompileOptions options() {
  CompileOptions o;
  o.dataDir = SKELESHARE_SOURCE_DIR;
  o.design = "attn";
  return o;
}

TEST(Driver, ExtractsLowersAndEmitsSelfAttention) {
  auto m = test_support::loadDsl(bench("self_attention_small.dsl"));
  Compiled c = compile(m.module, *m.ctx, Workload{2560, {}}, options());
  ASSERT_EQ(c.status, Status::Ok) << c.message;
  ASSERT_TRUE(c.hardware && c.program && c.design);
  EXPECT_EQ(c.report["status"], "ok");
  EXPECT_EQ(c.report["top"], "attn_top");
  EXPECT_EQ(c.report["predicted_cycles"].get<int64_t>(), c.predictedCycles);
  EXPECT_GT(c.estimatedCycles, 0);
  // i8 x i8: two multipliers per DSP block (the device's dsp_modes)
  EXPECT_EQ(c.report["hardware"]["dsp_multiplier_lanes"].get<int64_t>(),
            2 * c.report["hardware"]["dsps"].get<int64_t>());
  EXPECT_EQ(c.report["hardware"]["dsps"], c.report["dsp_used"]);
  // the cycle model: the prediction within 15% of the lowering's estimate
  EXPECT_NEAR(static_cast<double>(c.estimatedCycles) / static_cast<double>(c.predictedCycles), 1.0, 0.15)
      << c.estimatedCycles << " estimated, " << c.predictedCycles << " predicted";
  EXPECT_EQ(c.report["memory_map"]["buffers"].size(), c.program->buffers.size());
  std::vector<std::string> names;
  for (const auto& [name, text] : outputFiles(c, templateDir(SKELESHARE_SOURCE_DIR))) names.push_back(name);
  for (const char* want : {"design.ir", "vhdl/ss_pkg.vhd", "vhdl/attn_top.vhd", "vhdl/files.txt", "vhdl/attn_quartus.tcl", "vhdl/attn_tb.vhd",
                           "vhdl/ss_avmm_model.vhd", "attn_memory_map.h", "report.json"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
}

TEST(Driver, WithOverlapTheReportGivesEachUnitsStartAndEndInTheSchedule) {
  auto m = test_support::loadDsl(bench("stencil4_small.dsl"));
  for (bool overlap : {false, true}) {
    CompileOptions o = options();
    o.overlap = overlap;
    Compiled c = compile(m.module, *m.ctx, Workload{1518, {}}, o);
    ASSERT_EQ(c.status, Status::Ok) << c.message;
    const auto& units = c.report["estimated_units"];
    ASSERT_GE(units.size(), 2u);
    int withPrevious = 0;
    int64_t last = 0;
    for (size_t i = 0; i < units.size(); ++i) {
      const int64_t start = units[i]["start"], end = units[i]["end"], cycles = units[i]["cycles"];
      if (units[i]["with_previous"]) {
        ++withPrevious;  // starts with its neighbour once the unit before that has ended
        EXPECT_EQ(start, std::max(units[i - 1]["start"].get<int64_t>(), i >= 2 ? units[i - 2]["end"].get<int64_t>() + 1 : 0));
        EXPECT_LT(end - start, cycles + units[i - 1]["cycles"].get<int64_t>());
      } else {
        EXPECT_EQ(start, i == 0 ? 0 : units[i - 1]["end"].get<int64_t>() + 1);  // the switch
        EXPECT_EQ(end - start, cycles);
      }
      last = std::max(last, end);
    }
    EXPECT_EQ(c.estimatedCycles, last + 1);
    // the same units one after another, which the prediction models and is held to
    int64_t sum = 0;
    for (const auto& u : units) sum += u["cycles"].get<int64_t>() + 1;
    EXPECT_EQ(c.sequentialCycles, sum);
    if (overlap) {
      EXPECT_GT(withPrevious, 0);
      EXPECT_LT(c.estimatedCycles, c.sequentialCycles);
    } else {
      EXPECT_EQ(withPrevious, 0);
      EXPECT_EQ(c.estimatedCycles, c.sequentialCycles);
    }
  }
}

// With --overlap, where every unit calls one shared unit, each hands it over to the next:
// the prediction credits them (cost::NodeCost::overlap) and is held to the overlapped
// estimate. The outlined design costed on its own gives both predictions.
TEST(Driver, WithOverlapThePredictionCreditsUnitsThatHandTheirSharedUnitOver) {
  const cost::Device device = cost::findDevice("arria10_gx1150", SKELESHARE_SOURCE_DIR);
  for (const char* name : {"self_attention_small.dsl", "stencil4_small.dsl"}) {
    auto m = test_support::loadDsl(bench(name));
    for (int64_t budget : {1518, 8}) {
      SCOPED_TRACE(fmt::format("{} at {} DSPs", name, budget));
      CompileOptions o = options();
      o.overlap = true;
      o.dspBudget = budget;
      Compiled c = compile(m.module, *m.ctx, Workload{1, {}}, o);
      ASSERT_EQ(c.status, Status::Ok) << c.message;
      const int64_t oneAfterAnother = c.report["predicted_cycles_one_after_another"];
      EXPECT_LT(c.predictedCycles, oneAfterAnother);
      EXPECT_NEAR(static_cast<double>(c.estimatedCycles) / static_cast<double>(c.predictedCycles), 1.0, 0.15)
          << c.estimatedCycles << " estimated, " << c.predictedCycles << " predicted";
      const bool boxes = c.report["read_shapes"] == "boxes";
      EXPECT_EQ(predictAsWritten(*c.design, device, false, boxes, true).cycles, c.predictedCycles);
      EXPECT_EQ(predictAsWritten(*c.design, device, false, boxes, false).cycles, oneAfterAnother);
    }
  }
  // A max-pool calls no shared unit, so VGG's units never all hand one over.
  auto vgg = test_support::loadDsl(bench("vgg_cifar_small.dsl"));
  CompileOptions o = options();
  o.overlap = true;
  Compiled c = compile(vgg.module, *vgg.ctx, Workload{1, {}}, o);
  ASSERT_EQ(c.status, Status::Ok) << c.message;
  EXPECT_EQ(c.report["predicted_cycles_one_after_another"].get<int64_t>(), c.predictedCycles);
}

TEST(Driver, AsWrittenSkipsExtraction) {
  auto m = test_support::loadDsl(bench("stencil4_small.dsl"));
  CompileOptions o = options();
  o.asWritten = true;
  Compiled c = compile(m.module, *m.ctx, std::nullopt, o);
  ASSERT_EQ(c.status, Status::Ok) << c.message;
  EXPECT_EQ(c.report["status"], "as_written");
  EXPECT_FALSE(c.design.has_value());
  EXPECT_GT(c.predictedCycles, 0);
  EXPECT_TRUE(c.hardware.has_value());
}

TEST(Driver, BadOptionsAndImpossibleBudgets) {
  auto m = test_support::loadDsl(bench("self_attention_small.dsl"));
  CompileOptions o = options();
  o.disabled = {"nosuchgroup"};
  EXPECT_EQ(compile(m.module, *m.ctx, std::nullopt, o).status, Status::BadInput);
  o = options();
  o.dspBudget = 10;
  o.dspFraction = 0.5;
  EXPECT_EQ(compile(m.module, *m.ctx, std::nullopt, o).status, Status::BadInput);
  o = options();
  o.device = "nosuchdevice";
  EXPECT_EQ(compile(m.module, *m.ctx, std::nullopt, o).status, Status::BadInput);
  o = options();
  o.dspBudget = 0;
  Compiled c = compile(m.module, *m.ctx, std::nullopt, o);
  EXPECT_EQ(c.status, Status::NoDesign) << c.message;
  EXPECT_FALSE(c.hardware.has_value());
  // proven with the box-read model: line reads would not fit either, so one attempt
  EXPECT_EQ(c.report["read_shape_attempts"].size(), 1u) << c.report.dump(2);
}

// A first network of a user's own (the issue "Every well-typed program gets a working
// design"): channel counts that neither divide nor pad within one eighth (1 -> 6 -> 10) and
// output extents that do not tile into each other (14 and 5). The default rules find no
// single convolution unit; the second stage, with rules/widening.rules, does.
constexpr const char* kLeNet = R"(
input x : i8[14][14][1];
weight w1 : i8[6][3][3][1];
weight w2 : i8[10][3][3][6];
weight fc : i8[10][250];
let c1 = relu(requant(conv(pad(x, 1, 1, 1, 1), w1), 6));
let p1 = maxpool(c1, 2, 2);
let c2 = relu(requant(conv(p1, w2), 6));
output out = mv(fc, flatten(c2));
)";

TEST(Driver, WideningRulesRunOnlyWhenTheDefaultRulesGiveNoDesign) {
  auto attn = test_support::loadDsl(bench("self_attention_small.dsl"));
  Compiled c = compile(attn.module, *attn.ctx, std::nullopt, options());
  ASSERT_EQ(c.status, Status::Ok) << c.message;
  EXPECT_EQ(c.report["rule_stage"], "default");
  EXPECT_TRUE(c.report["default_rules_message"].is_null());

  auto lenet = test_support::loadDslText(kLeNet);
  c = compile(lenet.module, *lenet.ctx, std::nullopt, options());
  ASSERT_EQ(c.status, Status::Ok) << c.message;
  EXPECT_EQ(c.report["rule_stage"], "widened");
  EXPECT_NE(c.report["default_rules_message"].get<std::string>().find("no single convolution function"),
            std::string::npos);
  EXPECT_EQ(c.report["conv_units"], 1);
  EXPECT_TRUE(c.hardware.has_value());

  // Without the widening group the first stage's answer stands.
  CompileOptions o = options();
  o.disabled = {"widening"};
  c = compile(lenet.module, *lenet.ctx, std::nullopt, o);
  EXPECT_EQ(c.status, Status::NoDesign);
  EXPECT_NE(c.message.find("try --max-conv-units 2"), std::string::npos) << c.message;
  EXPECT_EQ(c.report["rule_stage"], "default");
}

// Read shapes (docs/lowering.md, "Box reads"). A padded convolution reads each row of its
// windows once as a box of the image: the lowered design confirms the box-read
// prediction, which is under half the line reads'.
constexpr const char* kPaddedConv = R"(
input x : i8[26][26][3];
weight w : i8[16][3][3][3];
output y = relu(requant(conv(pad(x, 1, 1, 1, 1), w), 6));
)";

TEST(Driver, BoxReadsWhereTheLoweredDesignConfirmsThePrediction) {
  auto m = test_support::loadDslText(kPaddedConv);
  Compiled c = compile(m.module, *m.ctx, std::nullopt, options());
  ASSERT_EQ(c.status, Status::Ok) << c.message;
  EXPECT_EQ(c.report["read_shapes"], "boxes");
  ASSERT_EQ(c.report["read_shape_attempts"].size(), 1u) << c.report.dump(2);
  EXPECT_TRUE(c.report["read_shape_attempts"][0]["confirmed"].get<bool>());
  EXPECT_NEAR(static_cast<double>(c.estimatedCycles) / static_cast<double>(c.predictedCycles), 1.0, kConfirmTolerance);
  EXPECT_NE(c.programText.find("SelectLanes"), std::string::npos) << c.programText;
  EXPECT_NE(c.designText.find("// read shapes: boxes"), std::string::npos);

  CompileOptions o = options();
  o.readShapes = ReadShapes::Lines;
  Compiled lines = compile(m.module, *m.ctx, std::nullopt, o);
  ASSERT_EQ(lines.status, Status::Ok) << lines.message;
  EXPECT_EQ(lines.report["read_shapes"], "lines");
  EXPECT_FALSE(lines.report.contains("read_shape_attempts"));
  EXPECT_EQ(lines.programText.find("SelectLanes"), std::string::npos);
  EXPECT_LT(2 * c.estimatedCycles, lines.estimatedCycles);
}

// VGG-small at 512 DSPs: with box reads the extractor shares one PaddedConvICH unit under
// deep tilings that its box-read model prices at half of what the lowered design takes
// (docs/cost-model.md). The compile falls back to line reads, and gives exactly what a
// line-read compile gives.
TEST(Driver, LineReadsWhereTheBoxReadDesignIsNotConfirmed) {
  auto m = test_support::loadDsl(bench("vgg_cifar_small.dsl"));
  CompileOptions o = options();
  o.dspBudget = 512;
  Compiled c = compile(m.module, *m.ctx, std::nullopt, o);
  ASSERT_EQ(c.status, Status::Ok) << c.message;
  EXPECT_EQ(c.report["read_shapes"], "lines");
  const auto& attempts = c.report["read_shape_attempts"];
  ASSERT_EQ(attempts.size(), 2u) << c.report.dump(2);
  EXPECT_EQ(attempts[0]["read_shapes"], "boxes");
  EXPECT_FALSE(attempts[0]["confirmed"].get<bool>());
  EXPECT_GT(attempts[0]["estimated_cycles"].get<double>(),
            (1 + kConfirmTolerance) * attempts[0]["predicted_cycles"].get<double>());
  EXPECT_EQ(attempts[1]["read_shapes"], "lines");
  EXPECT_TRUE(attempts[1]["confirmed"].get<bool>());
  EXPECT_EQ(attempts[1]["estimated_cycles"], c.estimatedCycles);

  o.readShapes = ReadShapes::Lines;
  auto fresh = test_support::loadDsl(bench("vgg_cifar_small.dsl"));
  Compiled lines = compile(fresh.module, *fresh.ctx, std::nullopt, o);
  ASSERT_EQ(lines.status, Status::Ok) << lines.message;
  EXPECT_EQ(c.designText, lines.designText);
  EXPECT_EQ(c.programText, lines.programText);
  ASSERT_TRUE(c.hardware && lines.hardware);
  ASSERT_EQ(c.hardware->files.size(), lines.hardware->files.size());
  for (size_t i = 0; i < c.hardware->files.size(); ++i)
    EXPECT_EQ(c.hardware->files[i].text, lines.hardware->files[i].text) << c.hardware->files[i].name;
}

}  // namespace
}  // namespace skeleshare::driver
