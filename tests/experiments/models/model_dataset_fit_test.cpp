#include "experiments/models/model_dataset_fit.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace jetchar::experiments {
namespace {

loaders::SampleLayout images(std::int64_t channels) {
  loaders::SampleLayout layout;
  layout.input_type = loaders::InputType::kFloat32;
  layout.input_shape = {channels, 28, 28};
  return layout;
}

loaders::SampleLayout tokens(std::int64_t length, std::vector<std::int64_t> target_shape) {
  loaders::SampleLayout layout;
  layout.input_type = loaders::InputType::kInt64;
  layout.input_shape = {length};
  layout.target_shape = std::move(target_shape);
  return layout;
}

TEST(ModelDatasetFit, ImageModelsNeedTheirChannelCountAndOneClassPerSample) {
  const auto& lenet = find_model("lenet5");  // 1x28x28
  EXPECT_TRUE(model_fits_dataset(lenet, images(1)));
  EXPECT_FALSE(model_fits_dataset(lenet, images(3)));
  auto per_pixel = images(1);
  per_pixel.target_shape = {28};
  EXPECT_FALSE(model_fits_dataset(lenet, per_pixel));
  EXPECT_FALSE(model_fits_dataset(lenet, tokens(16, {})));
  // Any spatial size: the data set's, not the model's default, is what the pipeline feeds.
  EXPECT_TRUE(model_fits_dataset(find_model("resnet18-cifar"), images(3)));
}

TEST(ModelDatasetFit, TokenModelsNeedTheTargetTheirTaskScores) {
  const auto& classify = find_model("bert-tiny");
  const auto& ner = find_model("bert-tiny-ner");
  const auto& qa = find_model("bert-tiny-qa");
  EXPECT_TRUE(model_fits_dataset(classify, tokens(16, {})));
  EXPECT_FALSE(model_fits_dataset(classify, tokens(16, {16})));
  EXPECT_TRUE(model_fits_dataset(ner, tokens(16, {16})));
  EXPECT_FALSE(model_fits_dataset(ner, tokens(16, {8})));
  EXPECT_FALSE(model_fits_dataset(ner, tokens(16, {2})));
  EXPECT_TRUE(model_fits_dataset(qa, tokens(16, {2})));
  EXPECT_FALSE(model_fits_dataset(qa, tokens(16, {})));
  auto float_tokens = tokens(16, {});
  float_tokens.input_type = loaders::InputType::kFloat32;
  EXPECT_FALSE(model_fits_dataset(classify, float_tokens));
  EXPECT_FALSE(model_fits_dataset(classify, images(1)));
}

TEST(ModelDatasetFit, MaskedLmModelsAndCorporaGoOnlyTogether) {
  auto corpus = tokens(16, {16});
  corpus.target_vocab_size = 30522;
  const auto& mlm = find_model("bert-tiny-mlm");
  EXPECT_TRUE(model_fits_dataset(mlm, corpus));
  EXPECT_FALSE(model_fits_dataset(find_model("bert-tiny-ner"), corpus));  // same shapes, but token-id targets
  EXPECT_FALSE(model_fits_dataset(mlm, tokens(16, {16})));                // tags are no token ids
  EXPECT_FALSE(model_fits_dataset(mlm, tokens(16, {})));
  EXPECT_TRUE(model_fits_dataset(find_model("electra-small"), corpus));
  EXPECT_FALSE(model_fits_dataset(find_model("electra-small"), tokens(16, {16})));
  EXPECT_FALSE(model_fits_dataset(find_model("electra-small-qa"), corpus));
  loaders::DatasetInfo info;
  info.name = "corpus/wiki.txt";
  info.format = "text-corpus";
  info.layout = corpus;
  try {
    require_model_fits_dataset(find_model("bert-tiny-ner"), info);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("model bert-tiny-ner (token-classification) does not fit data set "
                                         "corpus/wiki.txt (text-corpus): pretraining models (bert-*-mlm, "
                                         "electra-small, electra-base) train on a text corpus (corpus:FILE), and a "
                                         "corpus trains only them"),
              std::string::npos)
        << e.what();
  }
}

TEST(ModelDatasetFit, AMismatchNamesTheModelAndTheDataSet) {
  loaders::DatasetInfo info;
  info.name = "conll2003/train";
  info.layout = tokens(16, {16});
  EXPECT_NO_THROW(require_model_fits_dataset(find_model("bert-tiny-ner"), info));
  try {
    require_model_fits_dataset(find_model("bert-tiny-qa"), info);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("model bert-tiny-qa"), std::string::npos) << message;
    EXPECT_NE(message.find("does not fit data set conll2003/train (input 16, target shape [16])"), std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace jetchar::experiments
