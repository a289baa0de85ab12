#include "experiments/models/bert_heads.h"

#include <gtest/gtest.h>

namespace jetchar::experiments {
namespace {

loaders::Batch tokens(std::int64_t batch, std::int64_t length) {
  loaders::Batch b;
  b.inputs = torch::randint(1000, 30522, {batch, length}, torch::kLong);
  b.attention_mask = torch::ones({batch, length}, torch::kLong);
  b.token_type_ids = torch::zeros({batch, length}, torch::kLong);
  return b;
}

TEST(BertHeadsTest, HeadsAddTheReferenceParameters) {
  // Reference: QA adds 2H+2, 9-label token classification 9H+9, both without the pooler.
  const std::int64_t base_without_pooler = 108'891'648;
  BertForQuestionAnswering qa(bert_config("bert-base"));
  EXPECT_EQ(parameter_count(*qa), base_without_pooler + 1'538);
  BertForTokenClassification ner(bert_config("bert-base"), 9);
  EXPECT_EQ(parameter_count(*ner), 108'898'569);
  BertForSequenceClassification cls(bert_config("bert-tiny"), 2);
  EXPECT_EQ(parameter_count(*cls), 4'385'920 + 258);
}

TEST(BertHeadsTest, OutputShapesPerTask) {
  auto batch = tokens(2, 16);
  BertForSequenceClassification cls(bert_config("bert-tiny"), 3);
  EXPECT_EQ(cls->forward_batch(batch).sizes(), (std::vector<std::int64_t>{2, 3}));
  BertForTokenClassification ner(bert_config("bert-tiny"), 9);
  EXPECT_EQ(ner->forward_batch(batch).sizes(), (std::vector<std::int64_t>{2, 16, 9}));
  BertForQuestionAnswering qa(bert_config("bert-tiny"));
  EXPECT_EQ(qa->forward_batch(batch).sizes(), (std::vector<std::int64_t>{2, 16, 2}));
}

TEST(BertHeadsTest, DistilBertSequenceHeadUsesAPreClassifier) {
  BertForSequenceClassification cls(bert_config("distilbert"), 2);
  EXPECT_EQ(parameter_count(*cls), 66'362'880 + 768 * 768 + 768 + 768 * 2 + 2);
  EXPECT_EQ(cls->forward_batch(tokens(1, 8)).sizes(), (std::vector<std::int64_t>{1, 2}));
}

}  // namespace
}  // namespace jetchar::experiments
