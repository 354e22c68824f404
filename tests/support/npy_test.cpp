// .npy reading and writing: round trips, NumPy interoperability (both directions),
// rejection of unsupported files, and a fuzz test on garbage.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "skeleshare/support/npy.h"
#include "skeleshare/support/random.h"

using namespace skeleshare;
namespace fs = std::filesystem;

namespace {

Tensor tensorOf(int bits, std::vector<int64_t> shape, std::vector<int32_t> v) {
  Tensor t(bits, std::move(shape));
  t.values() = std::move(v);
  return t;
}

template <class F>
void expectNpyError(F fn, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one mentioning '" << needle << "'";
  } catch (const NpyError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

fs::path scratchDir(const std::string& name) {
  fs::path d = fs::path(SKELESHARE_BINARY_DIR) / "test-scratch" / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

const char* kPython = "/usr/bin/python3";  // Debian's python3-numpy belongs to this one

bool haveNumpy() { return std::system((std::string(kPython) + " -c 'import numpy' 2>/dev/null").c_str()) == 0; }

std::string script() { return std::string(SKELESHARE_SOURCE_DIR) + "/tests/numpy/npy_samples.py"; }

TEST(Npy, RoundTripsEveryWidthAndRank) {
  for (int bits : {8, 16, 32})
    for (const std::vector<int64_t>& shape : {std::vector<int64_t>{}, {1}, {7}, {2, 3}, {2, 1, 3, 2}}) {
      const int32_t hi = static_cast<int32_t>((int64_t{1} << (bits - 1)) - 1);
      Tensor t = rng::randomTensor(1, "t", bits, shape, rng::Range{-hi - 1, hi});
      Tensor back = parseNpy(encodeNpy(t));
      EXPECT_EQ(back, t) << t.describe();
    }
}

TEST(Npy, HeaderIsNumpyShaped) {
  std::string b = encodeNpy(tensorOf(8, {2, 3}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(b.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ((b.size() - 6) % 64, 0u);  // data starts at 64
  EXPECT_NE(b.find("{'descr': '|i1', 'fortran_order': False, 'shape': (2, 3), }"), std::string::npos);
  EXPECT_NE(encodeNpy(Tensor(16, {5})).find("'<i2'"), std::string::npos);
  EXPECT_NE(encodeNpy(Tensor(16, {5})).find("(5,)"), std::string::npos);
  EXPECT_NE(encodeNpy(Tensor(32, {})).find("'shape': ()"), std::string::npos);
}

TEST(Npy, ConvertsToATargetWidthWhenValuesFit) {
  Tensor t = tensorOf(32, {3}, {-128, 0, 127});
  EXPECT_EQ(parseNpy(encodeNpy(t), 8), tensorOf(8, {3}, {-128, 0, 127}));
  expectNpyError([&] { parseNpy(encodeNpy(tensorOf(32, {2}, {0, 128})), 8); }, "element 1 is 128, which does not fit i8");
  expectNpyError([&] { parseNpy(encodeNpy(t), 12); }, "target width 12");
}

TEST(Npy, RejectsMalformedFiles) {
  const std::string good = encodeNpy(tensorOf(16, {2, 2}, {1, 2, 3, 4}));
  expectNpyError([&] { parseNpy(""); }, "bad magic");
  expectNpyError([&] { parseNpy("\x93NUMPX\x01\x00\x00\x00"); }, "bad magic");
  std::string v3 = good;
  v3[6] = 3;
  expectNpyError([&] { parseNpy(v3); }, "version 3.0");
  expectNpyError([&] { parseNpy(good.substr(0, good.size() - 1)); }, "expected 8 bytes of data for 4 elements, found 7");
  expectNpyError([&] { parseNpy(good + "x"); }, "found 9");
  expectNpyError([&] { parseNpy(good.substr(0, 30)); }, "truncated header");
  std::string huge = good;
  huge[6] = 2;  // version 2.0 reads a 4-byte length: "{'" ...
  expectNpyError([&] { parseNpy(huge); }, "implausibly large");
  auto withHeader = [](const std::string& dict) {
    std::string s = std::string("\x93NUMPY\x01\x00", 8);
    s.push_back(static_cast<char>(dict.size() & 0xFF));
    s.push_back(static_cast<char>(dict.size() >> 8));
    return s + dict;
  };
  expectNpyError([&] { parseNpy(withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\n") + "abcd"); },
                 "unsupported dtype '<f4'");
  expectNpyError([&] { parseNpy(withHeader("{'descr': '>i4', 'fortran_order': False, 'shape': (1,), }\n") + "abcd"); },
                 "big-endian");
  expectNpyError([&] { parseNpy(withHeader("{'descr': '<i4', 'fortran_order': True, 'shape': (1,), }\n") + "abcd"); },
                 "Fortran-order");
  expectNpyError([&] { parseNpy(withHeader("{'descr': '<i4', 'shape': (1,), }\n") + "abcd"); }, "lacks");
  expectNpyError([&] { parseNpy(withHeader("{'descr': '<i4', 'descr': '<i4', }\n")); }, "repeated key");
  expectNpyError([&] { parseNpy(withHeader("{'descr': '<i4', 'fortran_order': False, 'shape': (-1,), }\n")); },
                 "expected a dimension");
  expectNpyError([&] { parseNpy(withHeader("{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999999,), }\n")); },
                 "too large");
  expectNpyError([&] { parseNpy(withHeader("{'descr': '<i4', 'fortran_order': False, 'shape': (1048576, 1048576, 1048576), }\n")); },
                 "too large");
  expectNpyError([&] { parseNpy(withHeader("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), } x\n")); },
                 "trailing characters");
  // Python 2 longs and double quotes are still valid headers.
  EXPECT_EQ(parseNpy(withHeader("{\"descr\": \"<i2\", \"fortran_order\": False, \"shape\": (2L,)}\n") + std::string("\x01\x00\xff\xff", 4)),
            tensorOf(16, {2}, {1, -1}));
}

TEST(Npy, FuzzedInputNeverCrashes) {
  // Random bytes, and valid files with random bytes overwritten or cut short: every
  // outcome is a tensor or an NpyError, never a crash (the Sanitize build checks memory).
  rng::SplitMix64 gen(12345);
  const std::string good = encodeNpy(rng::randomTensor(3, "g", 16, {3, 5}, rng::Role::Input));
  int parsed = 0, rejected = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string s;
    switch (iter % 4) {
      case 0:  // garbage after a valid magic
        s = std::string("\x93NUMPY", 6);
        for (uint64_t n = gen.next() % 200; n > 0; --n) s.push_back(static_cast<char>(gen.next()));
        break;
      case 1:  // truncations
        s = good.substr(0, gen.next() % good.size());
        break;
      default:  // byte flips, mostly in the header
        s = good;
        for (int k = 0; k < 3; ++k) {
          size_t at = gen.next() % (iter % 4 == 2 ? 80 : s.size());
          s[at] = static_cast<char>(gen.next());
        }
    }
    try {
      Tensor t = parseNpy(s);
      EXPECT_LE(t.size(), s.size());  // every element came from the input
      ++parsed;
    } catch (const NpyError&) {
      ++rejected;
    }
  }
  EXPECT_GT(parsed, 0);
  EXPECT_GT(rejected, 0);
}

TEST(Npy, FilesAndMissingFiles) {
  fs::path d = scratchDir("npy_files");
  Tensor t = tensorOf(32, {2}, {INT32_MIN, INT32_MAX});
  writeNpy((d / "t.npy").string(), t);
  EXPECT_EQ(readNpy((d / "t.npy").string()), t);
  expectNpyError([&] { readNpy((d / "missing.npy").string()); }, "missing.npy: cannot open");
  expectNpyError([&] { writeNpy((d / "no" / "such" / "dir.npy").string(), t); }, "cannot open for writing");
}

TEST(Npy, ReadsWhatNumpyWrites) {
  if (!haveNumpy()) FAIL() << kPython << " has no numpy (the set-up installs python3-numpy)";
  fs::path d = scratchDir("npy_from_numpy");
  ASSERT_EQ(std::system((std::string(kPython) + " " + script() + " write " + d.string()).c_str()), 0);
  auto rd = [&](const char* name, std::optional<int> bits = std::nullopt) { return readNpy((d / name).string(), bits); };
  EXPECT_EQ(rd("i8.npy"), tensorOf(8, {3, 4}, {-6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5}));
  Tensor i16 = rd("i16.npy");
  EXPECT_EQ(i16.describe(), "i16[2][3][2]");
  EXPECT_EQ(i16[0], -1000);
  EXPECT_EQ(i16[11], -989);
  EXPECT_EQ(rd("i32.npy"), tensorOf(32, {4}, {INT32_MIN, INT32_MAX, 0, 7}));
  EXPECT_EQ(rd("i64_fits.npy"), tensorOf(32, {5}, {-2, -1, 0, 1, 2}));
  EXPECT_EQ(rd("i64_fits.npy", 8), tensorOf(8, {5}, {-2, -1, 0, 1, 2}));
  expectNpyError([&] { rd("i64_big.npy"); }, "element 1 is 1099511627776, which does not fit i32");
  EXPECT_EQ(rd("u8.npy"), tensorOf(16, {2, 2}, {0, 127, 128, 255}));
  expectNpyError([&] { rd("u8.npy", 8); }, "element 2 is 128, which does not fit i8");
  EXPECT_EQ(rd("scalar.npy"), tensorOf(16, {}, {-42}));
  expectNpyError([&] { rd("f32.npy"); }, "unsupported dtype '<f4'");
  expectNpyError([&] { rd("fortran.npy"); }, "Fortran-order");
  expectNpyError([&] { rd("big_endian.npy"); }, "big-endian");
  EXPECT_EQ(rd("v2.npy"), tensorOf(16, {4, 2}, {5, 6, 7, 8, 9, 10, 11, 12}));
}

TEST(Npy, NumpyReadsWhatWeWrite) {
  if (!haveNumpy()) FAIL() << kPython << " has no numpy (the set-up installs python3-numpy)";
  fs::path d = scratchDir("npy_to_numpy");
  Tensor i8(8, {2, 3});
  for (size_t i = 0; i < 6; ++i) i8[i] = static_cast<int32_t>(i) - 128;
  writeNpy((d / "w_i8.npy").string(), i8);
  writeNpy((d / "w_i16.npy").string(), tensorOf(16, {1, 2}, {-32768, 32767}));
  writeNpy((d / "w_i32.npy").string(), tensorOf(32, {3}, {INT32_MIN, INT32_MAX, 5}));
  writeNpy((d / "w_scalar.npy").string(), tensorOf(32, {}, {9}));
  Tensor lng(8, {1, 1, 1, 1, 70});
  for (size_t i = 0; i < 70; ++i) lng[i] = static_cast<int32_t>(i);
  writeNpy((d / "w_long.npy").string(), lng);
  EXPECT_EQ(std::system((std::string(kPython) + " " + script() + " check " + d.string()).c_str()), 0);
}

}  // namespace
