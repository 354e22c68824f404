// The importer's translation rules and errors on models built here with the ONNX protobuf
// classes: the cases tests/onnx/check_import.py (real exported-style models, end to end)
// does not reach.

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "skeleshare/onnx/import.h"

namespace skeleshare::onnximport {
namespace {

using DT = onnx::TensorProto_DataType;

/// A model under construction: x [1, 2, 4, 4] float -> QuantizeLinear(2^-4) -> ...
class ModelBuilder {
 public:
  ModelBuilder() {
    model_.set_ir_version(8);
    auto* op = model_.add_opset_import();
    op->set_domain("");
    op->set_version(13);
    g()->set_name("test");
    auto* in = g()->add_input();
    in->set_name("x");
    auto* tt = in->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(DT::TensorProto_DataType_FLOAT);
    for (int64_t d : {1, 2, 4, 4}) tt->mutable_shape()->add_dim()->set_dim_value(d);
    scale("s_x", 1.0f / 16);
    scale("s_w", 1.0f / 64);
    scale("s_a", 1.0f / 8);
    zero("zp", DT::TensorProto_DataType_INT8);
    node("QuantizeLinear", "q_x", {"x", "s_x", "zp"});
    node("DequantizeLinear", "dq_x", {"q_x", "s_x", "zp"});
  }

  onnx::GraphProto* g() { return model_.mutable_graph(); }

  void scale(const std::string& name, float v) {
    auto* t = g()->add_initializer();
    t->set_name(name);
    t->set_data_type(DT::TensorProto_DataType_FLOAT);
    t->add_float_data(v);
  }
  void zero(const std::string& name, DT type, int32_t v = 0) {
    auto* t = g()->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    t->add_int32_data(v);
  }
  void ints(const std::string& name, DT type, std::vector<int64_t> dims, int32_t fill) {
    auto* t = g()->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    int64_t n = 1;
    for (int64_t d : dims) {
      t->add_dims(d);
      n *= d;
    }
    for (int64_t i = 0; i < n; ++i) {
      if (type == DT::TensorProto_DataType_INT64) t->add_int64_data(fill);
      else t->add_int32_data(fill);
    }
  }
  onnx::NodeProto* node(const std::string& op, const std::string& name, std::vector<std::string> inputs) {
    auto* n = g()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : inputs) n->add_input(i);
    n->add_output(name);
    return n;
  }
  static void intsAttr(onnx::NodeProto* n, const std::string& name, std::vector<int64_t> v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto_AttributeType_INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  static void intAttr(onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto_AttributeType_INT);
    a->set_i(v);
  }
  /// A 3x3 QDQ convolution of dq_x with 3 output channels, requantised to 2^-3 as "q".
  onnx::NodeProto* conv() {
    ints("w", DT::TensorProto_DataType_INT8, {3, 2, 3, 3}, 1);
    node("DequantizeLinear", "dq_w", {"w", "s_w", "zp"});
    onnx::NodeProto* c = node("Conv", "conv", {"dq_x", "dq_w"});
    intsAttr(c, "pads", {1, 1, 1, 1});
    node("QuantizeLinear", "q", {"conv", "s_a", "zp"});
    return c;
  }
  void output(const std::string& name) { g()->add_output()->set_name(name); }

  Imported import(ImportOptions o = {}) {
    std::filesystem::path p = std::filesystem::temp_directory_path() /
                              (::testing::UnitTest::GetInstance()->current_test_info()->name() + std::string(".onnx"));
    {
      std::ofstream f(p, std::ios::binary);
      model_.SerializeToOstream(&f);
    }
    struct Remove {
      std::filesystem::path p;
      ~Remove() { std::filesystem::remove(p); }
    } remove{p};
    return importModel(p.string(), o);
  }
  std::string error(ImportOptions o = {}) {
    try {
      import(o);
    } catch (const ImportError& e) {
      return e.what();
    }
    return "(no error)";
  }

  onnx::ModelProto model_;
};

TEST(OnnxImport, ConvBecomesPaddedConvRequantisedHalfToEven) {
  ModelBuilder m;
  m.conv();
  m.output("q");
  Imported r = m.import();
  EXPECT_NE(r.program.find("input x : i8[4][4][2];"), std::string::npos) << r.program;
  EXPECT_NE(r.program.find("weight w : i8[3][3][3][2];"), std::string::npos) << r.program;
  // `conv` is the DSL's operator, so the node's let is conv_; the graph output keeps its
  // name and the node computing it gets the suffix.
  EXPECT_NE(r.program.find("let conv_ = conv(pad(x, 1), w);"), std::string::npos) << r.program;
  EXPECT_NE(r.program.find("let q_2 = requant_even(conv_, 7);"), std::string::npos) << r.program;
  EXPECT_NE(r.program.find("output q = q_2;"), std::string::npos) << r.program;
  ASSERT_EQ(r.weights.count("w"), 1u);
  EXPECT_EQ(r.weights.at("w").shape(), (std::vector<int64_t>{3, 3, 3, 2}));
  // The same model gives the same text.
  EXPECT_EQ(m.import().program, r.program);
}

TEST(OnnxImport, EqualPerChannelScalesAreOneScale) {
  ModelBuilder m;
  m.conv();
  auto* s = m.g()->mutable_initializer(1);  // s_w
  ASSERT_EQ(s->name(), "s_w");
  s->add_dims(3);
  s->add_float_data(1.0f / 64);
  s->add_float_data(1.0f / 64);
  m.output("q");
  EXPECT_NE(m.import().program.find("requant_even(conv_, 7)"), std::string::npos);
}

TEST(OnnxImport, Uint8AndMissingZeroPointsAreRejected) {
  ModelBuilder a;
  a.zero("zp_u8", DT::TensorProto_DataType_UINT8);
  a.node("QuantizeLinear", "q_u8", {"dq_x", "s_a", "zp_u8"});
  a.output("q_u8");
  EXPECT_NE(a.error().find("node 'q_u8' (QuantizeLinear): zero point 'zp_u8' is uint8"), std::string::npos) << a.error();
  ModelBuilder b;
  b.node("QuantizeLinear", "q_default", {"dq_x", "s_a"});
  b.output("q_default");
  EXPECT_NE(b.error().find("node 'q_default' (QuantizeLinear): no zero point, so the output is uint8"), std::string::npos)
      << b.error();
}

TEST(OnnxImport, ConvolutionsItCannotExpressAreRejectedByName) {
  auto withAttr = [](const char* name, int64_t v) {
    ModelBuilder m;
    ModelBuilder::intAttr(m.conv(), name, v);
    m.output("q");
    return m.error();
  };
  EXPECT_NE(withAttr("group", 2).find("node 'conv' (Conv): grouped convolution is not supported"), std::string::npos);
  ModelBuilder d;
  ModelBuilder::intsAttr(d.conv(), "dilations", {2, 2});
  d.output("q");
  EXPECT_NE(d.error().find("node 'conv' (Conv): dilation 2"), std::string::npos) << d.error();
  ModelBuilder u;
  onnx::NodeProto* c = u.conv();
  auto* a = c->add_attribute();
  a->set_name("mystery");
  a->set_type(onnx::AttributeProto_AttributeType_INT);
  u.output("q");
  EXPECT_NE(u.error().find("attribute 'mystery' is not supported"), std::string::npos) << u.error();
}

TEST(OnnxImport, ModelLevelErrors) {
  ModelBuilder old;
  old.model_.mutable_opset_import(0)->set_version(9);
  old.conv();
  old.output("q");
  EXPECT_NE(old.error().find("opset 9"), std::string::npos) << old.error();

  ModelBuilder ext;
  ext.conv();
  ext.g()->mutable_initializer(0)->set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  ext.output("q");
  EXPECT_NE(ext.error().find("external file"), std::string::npos) << ext.error();

  ModelBuilder order;  // a node reading what a later node computes
  order.node("Relu", "early", {"later"});
  order.node("Relu", "later", {"dq_x"});
  order.output("early");
  EXPECT_NE(order.error().find("node 'early' (Relu): input 'later' is not computed before the node"), std::string::npos)
      << order.error();

  ModelBuilder custom;
  custom.node("Relu", "custom", {"dq_x"})->set_domain("com.microsoft");
  custom.output("custom");
  EXPECT_NE(custom.error().find("operator domain 'com.microsoft'"), std::string::npos) << custom.error();
}

TEST(OnnxImport, ReshapeOnlyFlattensAndPadOnlyPadsTheImage) {
  ModelBuilder r;
  r.ints("shape", DT::TensorProto_DataType_INT64, {2}, 0);
  r.node("Reshape", "reshape", {"dq_x", "shape"});
  r.output("reshape");
  EXPECT_NE(r.error().find("node 'reshape' (Reshape): only a reshape to [1, -1]"), std::string::npos) << r.error();

  ModelBuilder p;
  auto* pads = p.g()->add_initializer();
  pads->set_name("pads");
  pads->set_data_type(DT::TensorProto_DataType_INT64);
  pads->add_dims(8);
  for (int64_t v : {0, 1, 0, 0, 0, 0, 0, 0}) pads->add_int64_data(v);
  p.node("Pad", "pad_c", {"dq_x", "pads"});
  p.output("pad_c");
  EXPECT_NE(p.error().find("node 'pad_c' (Pad): padding of the batch or the channels"), std::string::npos) << p.error();
}

TEST(OnnxImport, RoundScalesRecordsEveryRounding) {
  ModelBuilder m;
  m.conv();
  m.g()->mutable_initializer(2)->set_float_data(0, 0.1f);  // s_a: 2^-3 = 0.125 is 25% off
  m.output("q");
  EXPECT_NE(m.error().find("scale 0.1 of 's_a' is not a power of two (the nearest, 2^-3 = 0.125, is off by 25.0%)"),
            std::string::npos)
      << m.error();
  Imported r = m.import({true});
  ASSERT_EQ(r.roundings.size(), 1u);
  EXPECT_NE(r.program.find("// --round-scales: node 'q' (QuantizeLinear): scale 0.1"), std::string::npos) << r.program;
  EXPECT_NE(r.program.find("requant_even(conv_, 7)"), std::string::npos) << r.program;
}

}  // namespace
}  // namespace skeleshare::onnximport
