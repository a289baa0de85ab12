// What fetching a sample asks of a board, counted from the data set's description: an image's
// values as floats, a token task's ids with its mask and segment ids as int64, the stored bytes
// per sample, compressed images to decode, and the loader's workers.
#include "experiments/fetch_work.h"

#include <gtest/gtest.h>

namespace jetchar::experiments {
namespace {

TEST(FetchWorkTest, AnImageSampleIsItsFloatValuesAndItsShareOfTheFiles) {
  loaders::DatasetInfo info;
  info.format = "cifar10-bin";
  info.layout.input_shape = {3, 32, 32};
  info.bytes = 50'000 * 3'073;
  const auto work = count_fetch_work(info, 50'000, 2);
  EXPECT_DOUBLE_EQ(work.input_values, 3'072);
  EXPECT_DOUBLE_EQ(work.input_bytes, 4 * 3'072);
  EXPECT_DOUBLE_EQ(work.stored_bytes, 3'073);
  EXPECT_FALSE(work.decodes_images);
  EXPECT_EQ(work.workers, 2);
}

TEST(FetchWorkTest, ImageFilesAreDecoded) {
  for (const char* format : {"imagefolder", "gld23k"}) {
    loaders::DatasetInfo info;
    info.format = format;
    info.layout.input_shape = {3, 224, 224};
    info.bytes = 1'000'000;
    const auto work = count_fetch_work(info, 10, 0);
    EXPECT_TRUE(work.decodes_images) << format;
    EXPECT_DOUBLE_EQ(work.stored_bytes, 100'000) << format;
  }
}

TEST(FetchWorkTest, ATokenSampleCarriesItsMaskAndSegmentIdsAsInt64) {
  loaders::DatasetInfo info;
  info.format = "squad";
  info.layout.input_type = loaders::InputType::kInt64;
  info.layout.input_shape = {384};
  info.layout.has_attention_mask = true;
  info.layout.has_token_type_ids = true;
  const auto work = count_fetch_work(info, 0, 0);
  EXPECT_DOUBLE_EQ(work.input_values, 3 * 384);
  EXPECT_DOUBLE_EQ(work.input_bytes, 8 * 3 * 384);
  EXPECT_DOUBLE_EQ(work.stored_bytes, 0) << "no samples: nothing stored per sample";
  EXPECT_FALSE(work.decodes_images);
}

}  // namespace
}  // namespace jetchar::experiments
