#include "experiments/models/bert.h"

#include <gtest/gtest.h>

#include "experiments/models/network.h"

namespace jetchar::experiments {
namespace {

struct Expected {
  const char* name;
  std::int64_t params;
};

class BertSizeTest : public ::testing::TestWithParam<Expected> {};

TEST_P(BertSizeTest, EncoderParameterCountMatchesTheFormula) {
  BertModel model(bert_config(GetParam().name));
  EXPECT_EQ(parameter_count(*model), GetParam().params);
}

INSTANTIATE_TEST_SUITE_P(Family, BertSizeTest,
                         ::testing::Values(Expected{"bert-tiny", 4'385'920}, Expected{"bert-mini", 11'170'560},
                                           Expected{"bert-small", 28'763'648}, Expected{"bert-medium", 41'373'184},
                                           Expected{"bert-base", 109'482'240}, Expected{"bert-large", 335'141'888},
                                           Expected{"distilbert", 66'362'880}),
                         [](const auto& info) {
                           std::string name = info.param.name;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(BertTest, BaseWithoutPooler) {
  auto config = bert_config("bert-base");
  config.pooler = false;
  BertModel model(config);
  EXPECT_EQ(parameter_count(*model), 108'891'648);
}

TEST(BertTest, UnknownConfigurationNamesTheValidOnes) {
  try {
    bert_config("bert-huge");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("bert-huge"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("bert-tiny"), std::string::npos);
  }
}

TEST(BertTest, PaddingDoesNotChangeRealTokenStates) {
  BertModel model(bert_config("bert-tiny"));
  model->eval();
  torch::NoGradGuard no_grad;
  auto ids = torch::tensor({{101, 2000, 2001, 102}}, torch::kLong);
  auto padded = torch::tensor({{101, 2000, 2001, 102, 0, 0}}, torch::kLong);
  auto mask = torch::tensor({{1, 1, 1, 1, 0, 0}}, torch::kLong);
  auto plain = model(ids);
  auto masked = model(padded, mask);
  EXPECT_TRUE(torch::allclose(plain, masked.narrow(1, 0, 4), 1e-4, 1e-5));
  EXPECT_EQ(model->pool(plain).sizes(), (std::vector<std::int64_t>{1, 128}));
}

TEST(BertTest, RejectsSequencesLongerThanThePositions) {
  BertModel model(bert_config("bert-tiny"));
  EXPECT_THROW(model(torch::zeros({1, 513}, torch::kLong)), std::invalid_argument);
}

}  // namespace
}  // namespace jetchar::experiments
