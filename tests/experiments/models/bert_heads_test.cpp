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

TEST(BertHeadsTest, DistilBertHeadsDropOutWithTheirOwnRates) {
  // HF DistilBERT: seq_classif_dropout before the classifier, qa_dropout before qa_outputs.
  EXPECT_DOUBLE_EQ(bert_config("distilbert").sequence_dropout, 0.2);
  EXPECT_DOUBLE_EQ(bert_config("distilbert").qa_dropout, 0.1);
  EXPECT_DOUBLE_EQ(bert_config("bert-base").qa_dropout, 0.0);
  // With the encoder's dropouts off, two training-mode passes differ only through the head's dropout.
  auto config = bert_config("bert-tiny");
  config.dropout = 0.0;
  config.attention_dropout = 0.0;
  const auto batch = tokens(2, 8);
  auto differs = [&](auto model) {
    model->train();
    return !torch::equal(model->forward_batch(batch), model->forward_batch(batch));
  };
  config.qa_dropout = 0.5;
  EXPECT_TRUE(differs(BertForQuestionAnswering(config)));
  config.sequence_dropout = 0.5;
  EXPECT_TRUE(differs(BertForSequenceClassification(config, 2)));
  config.qa_dropout = 0.0;
  config.sequence_dropout = 0.0;
  EXPECT_FALSE(differs(BertForQuestionAnswering(config)));
  EXPECT_FALSE(differs(BertForSequenceClassification(config, 2)));
}

}  // namespace
}  // namespace jetchar::experiments
