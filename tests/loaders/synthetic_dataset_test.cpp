#include "loaders/synthetic_dataset.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace jetchar::loaders {
namespace {

using namespace std::chrono_literals;

template <typename F>
std::string synthetic_invalid_argument_of(F&& call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(SyntheticDataset, AnyShapeWithTargetsModuloClasses) {
  const SyntheticDataset dataset({2, 3, 4, 5}, 11, 4);
  EXPECT_EQ(dataset.size(), 11);
  EXPECT_EQ(dataset.info().name, "synthetic:2x3x4x5");
  EXPECT_EQ(dataset.info().format, "synthetic");
  EXPECT_TRUE(dataset.info().files.empty());
  EXPECT_EQ(dataset.info().layout.input_shape, (std::vector<std::int64_t>{2, 3, 4, 5}));
  EXPECT_EQ(dataset.info().layout.input_elements(), 120);
  EXPECT_TRUE(dataset.info().layout.target_shape.empty());
  EXPECT_EQ(dataset.info().classes, (std::vector<std::string>{"0", "1", "2", "3"}));
  std::vector<float> input(120, -1.0F);
  std::int64_t target = -1;
  for (std::int64_t index : {0, 5, 10}) {
    Rng rng(9, 0, static_cast<std::uint64_t>(index));
    const SampleStatus status = dataset.get(index, rng, SampleOut{input, {}, {&target, 1}, {}, {}});
    ASSERT_TRUE(status.ok) << status.error;
    EXPECT_EQ(status.bytes_read, 0U) << "no files";
    EXPECT_EQ(target, index % 4);
    // Every value is index + the sample's first uniform draw, in [index, index + 1).
    EXPECT_GE(input[0], static_cast<float>(index));
    EXPECT_LE(input[0], static_cast<float>(index + 1));
    for (float v : input) EXPECT_EQ(v, input[0]);
  }
}

TEST(SyntheticDataset, ValuesFollowTheSamplesRandomStreamOnly) {
  const SyntheticDataset dataset({3}, 5, 2);
  std::vector<float> a(3), b(3), c(3);
  Rng first(1, 2, 3), same(1, 2, 3), other(1, 2, 4);
  ASSERT_TRUE(dataset.get(2, first, SampleOut{a, {}, {}, {}, {}}).ok);
  ASSERT_TRUE(dataset.get(2, same, SampleOut{b, {}, {}, {}, {}}).ok);
  ASSERT_TRUE(dataset.get(2, other, SampleOut{c, {}, {}, {}, {}}).ok);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(SyntheticDataset, DelayIsSpentInEveryGet) {
  const SyntheticDataset slow({1}, 3, 1, 5ms);
  std::vector<float> out(1);
  Rng rng(0);
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t i = 0; i < 3; ++i) ASSERT_TRUE(slow.get(i, rng, SampleOut{out, {}, {}, {}, {}}).ok);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 15ms);
}

TEST(SyntheticDataset, BadShapesCountsAndIndicesAreErrors) {
  std::string error = synthetic_invalid_argument_of([] { SyntheticDataset({3, 0, 2}, 1, 1); });
  EXPECT_NE(error.find("shape '3x0x2' is not valid"), std::string::npos) << error;
  error = synthetic_invalid_argument_of([] { SyntheticDataset({}, 1, 1); });
  EXPECT_NE(error.find("shape '' is not valid"), std::string::npos) << error;
  error = synthetic_invalid_argument_of([] { SyntheticDataset({-2}, 1, 1); });
  EXPECT_NE(error.find("'-2'"), std::string::npos) << error;
  error = synthetic_invalid_argument_of([] { SyntheticDataset({4096, 4096, 32}, 1, 1); });
  EXPECT_NE(error.find("more than 2^28 values"), std::string::npos) << error;
  // Found by loaders_dataset_spec_fuzz: sizes whose product overflows 64 bits.
  error = synthetic_invalid_argument_of([] { SyntheticDataset({998, 98, 49, 98, 49, 908, 98, 30000}, 1, 1); });
  EXPECT_NE(error.find("more than 2^28 values"), std::string::npos) << error;
  error = synthetic_invalid_argument_of([] { SyntheticDataset({3}, 0, 1); });
  EXPECT_NE(error.find("samples 0"), std::string::npos) << error;
  error = synthetic_invalid_argument_of([] { SyntheticDataset({3}, 1, 0); });
  EXPECT_NE(error.find("classes 0"), std::string::npos) << error;
  error = synthetic_invalid_argument_of([] { SyntheticDataset({3}, 1, 1, -1us); });
  EXPECT_NE(error.find("delay -1 us"), std::string::npos) << error;

  const SyntheticDataset dataset({2}, 4, 2);
  std::vector<float> out(2);
  Rng rng(0);
  for (std::int64_t index : {-1, 4}) {
    const SampleStatus status = dataset.get(index, rng, SampleOut{out, {}, {}, {}, {}});
    EXPECT_FALSE(status.ok);
    EXPECT_NE(status.error.find("sample " + std::to_string(index) + " out of range 0..3"), std::string::npos)
        << status.error;
  }
}

}  // namespace
}  // namespace jetchar::loaders
