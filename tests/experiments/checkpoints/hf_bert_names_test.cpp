#include "experiments/checkpoints/hf_bert_names.h"

#include <gtest/gtest.h>

namespace jetchar::experiments {
namespace {

TEST(HfBertNamesTest, MapsBertModelAndHeadNames) {
  EXPECT_EQ(jetchar_bert_parameter("bert.embeddings.word_embeddings.weight"), "bert.word_embeddings.weight");
  EXPECT_EQ(jetchar_bert_parameter("bert.embeddings.token_type_embeddings.weight"),
            "bert.token_type_embeddings.weight");
  EXPECT_EQ(jetchar_bert_parameter("bert.embeddings.LayerNorm.bias"), "bert.embedding_norm.bias");
  EXPECT_EQ(jetchar_bert_parameter("bert.encoder.layer.11.attention.self.value.weight"), "bert.layer11.value.weight");
  EXPECT_EQ(jetchar_bert_parameter("bert.encoder.layer.0.attention.output.dense.bias"),
            "bert.layer0.attention_out.bias");
  EXPECT_EQ(jetchar_bert_parameter("bert.encoder.layer.2.attention.output.LayerNorm.weight"),
            "bert.layer2.attention_norm.weight");
  EXPECT_EQ(jetchar_bert_parameter("bert.encoder.layer.3.intermediate.dense.weight"),
            "bert.layer3.intermediate.weight");
  EXPECT_EQ(jetchar_bert_parameter("bert.encoder.layer.3.output.dense.weight"), "bert.layer3.output.weight");
  EXPECT_EQ(jetchar_bert_parameter("bert.encoder.layer.3.output.LayerNorm.bias"), "bert.layer3.output_norm.bias");
  EXPECT_EQ(jetchar_bert_parameter("bert.pooler.dense.weight"), "bert.pooler.weight");
  EXPECT_EQ(jetchar_bert_parameter("classifier.bias"), "classifier.bias");
  EXPECT_EQ(jetchar_bert_parameter("qa_outputs.weight"), "qa_outputs.weight");
}

TEST(HfBertNamesTest, ReadsTensorFlowNormNamesAndBareBertModelNames) {
  EXPECT_EQ(jetchar_bert_parameter("bert.embeddings.LayerNorm.gamma"), "bert.embedding_norm.weight");
  EXPECT_EQ(jetchar_bert_parameter("bert.encoder.layer.1.output.LayerNorm.beta"), "bert.layer1.output_norm.bias");
  EXPECT_EQ(jetchar_bert_parameter("encoder.layer.1.attention.self.query.bias"), "bert.layer1.query.bias");
  EXPECT_EQ(jetchar_bert_parameter("embeddings.position_embeddings.weight"), "bert.position_embeddings.weight");
}

TEST(HfBertNamesTest, OtherNamesAreUnknownOrUnused) {
  for (const char* name : {"bert.encoder.layer.01.output.dense.weight", "bert.encoder.layer.x.output.dense.weight",
                           "bert.encoder.layer.1.attention.self.qkv.weight", "bert.embeddings.LayerNorm.gamma2",
                           "bert.embeddings.word_embeddings.bias", "classifier.gamma", "bert.pooler.dense",
                           "distilbert.transformer.layer.0.attention.q_lin.weight", ""}) {
    EXPECT_EQ(jetchar_bert_parameter(name), std::nullopt) << name;
  }
  EXPECT_TRUE(hf_bert_tensor_unused("cls.predictions.transform.dense.weight"));
  EXPECT_TRUE(hf_bert_tensor_unused("bert.embeddings.position_ids"));
  EXPECT_FALSE(hf_bert_tensor_unused("bert.embeddings.word_embeddings.weight"));
  EXPECT_TRUE(bert_parameter_may_be_fresh("classifier.weight"));
  EXPECT_TRUE(bert_parameter_may_be_fresh("bert.pooler.bias"));
  EXPECT_FALSE(bert_parameter_may_be_fresh("bert.layer0.query.weight"));
}

TEST(HfBertNamesTest, MapsTheMaskedLmHeadAndItsTiedDecoder) {
  EXPECT_EQ(jetchar_bert_parameter("cls.predictions.transform.dense.weight"), "mlm_transform.weight");
  EXPECT_EQ(jetchar_bert_parameter("cls.predictions.transform.LayerNorm.gamma"), "mlm_norm.weight");
  EXPECT_EQ(jetchar_bert_parameter("cls.predictions.transform.LayerNorm.bias"), "mlm_norm.bias");
  EXPECT_EQ(jetchar_bert_parameter("cls.predictions.bias"), "mlm_bias");
  EXPECT_EQ(jetchar_bert_parameter("cls.predictions.decoder.weight"), std::nullopt);
  EXPECT_EQ(jetchar_bert_parameter("cls.seq_relationship.weight"), std::nullopt);
  EXPECT_EQ(jetchar_bert_tied_parameter("cls.predictions.decoder.weight"), "bert.word_embeddings.weight");
  EXPECT_EQ(jetchar_bert_tied_parameter("cls.predictions.decoder.bias"), "mlm_bias");
  EXPECT_EQ(jetchar_bert_tied_parameter("cls.predictions.bias"), std::nullopt);
  EXPECT_TRUE(hf_bert_tensor_unused("cls.seq_relationship.bias"));
  EXPECT_TRUE(bert_parameter_may_be_fresh("mlm_norm.weight"));
}

TEST(HfBertNamesTest, MapsDistilBertModelAndHeadNames) {
  EXPECT_EQ(jetchar_distilbert_parameter("distilbert.embeddings.word_embeddings.weight"),
            "bert.word_embeddings.weight");
  EXPECT_EQ(jetchar_distilbert_parameter("distilbert.embeddings.position_embeddings.weight"),
            "bert.position_embeddings.weight");
  EXPECT_EQ(jetchar_distilbert_parameter("distilbert.embeddings.LayerNorm.weight"), "bert.embedding_norm.weight");
  EXPECT_EQ(jetchar_distilbert_parameter("distilbert.transformer.layer.5.attention.q_lin.weight"),
            "bert.layer5.query.weight");
  EXPECT_EQ(jetchar_distilbert_parameter("distilbert.transformer.layer.0.attention.k_lin.bias"),
            "bert.layer0.key.bias");
  EXPECT_EQ(jetchar_distilbert_parameter("distilbert.transformer.layer.0.attention.v_lin.weight"),
            "bert.layer0.value.weight");
  EXPECT_EQ(jetchar_distilbert_parameter("distilbert.transformer.layer.1.attention.out_lin.bias"),
            "bert.layer1.attention_out.bias");
  EXPECT_EQ(jetchar_distilbert_parameter("distilbert.transformer.layer.1.sa_layer_norm.weight"),
            "bert.layer1.attention_norm.weight");
  EXPECT_EQ(jetchar_distilbert_parameter("distilbert.transformer.layer.2.ffn.lin1.weight"),
            "bert.layer2.intermediate.weight");
  EXPECT_EQ(jetchar_distilbert_parameter("distilbert.transformer.layer.2.ffn.lin2.bias"), "bert.layer2.output.bias");
  EXPECT_EQ(jetchar_distilbert_parameter("distilbert.transformer.layer.3.output_layer_norm.bias"),
            "bert.layer3.output_norm.bias");
  EXPECT_EQ(jetchar_distilbert_parameter("pre_classifier.weight"), "pre_classifier.weight");
  EXPECT_EQ(jetchar_distilbert_parameter("classifier.bias"), "classifier.bias");
  EXPECT_EQ(jetchar_distilbert_parameter("qa_outputs.weight"), "qa_outputs.weight");
  // A bare DistilBertModel saves its names without the prefix.
  EXPECT_EQ(jetchar_distilbert_parameter("transformer.layer.4.ffn.lin1.bias"), "bert.layer4.intermediate.bias");
}

TEST(HfBertNamesTest, OtherDistilBertNamesAreUnknownOrUnused) {
  for (const char* name :
       {"distilbert.transformer.layer.01.ffn.lin1.weight", "distilbert.transformer.layer.0.attention.qkv_lin.weight",
        "distilbert.embeddings.token_type_embeddings.weight", "distilbert.transformer.layer.0.ffn.lin3.weight",
        "pre_classifier.gamma", "bert.encoder.layer.0.attention.self.query.weight", "vocab_transform.weight", ""}) {
    EXPECT_EQ(jetchar_distilbert_parameter(name), std::nullopt) << name;
  }
  for (const char* name : {"vocab_transform.weight", "vocab_layer_norm.bias", "vocab_projector.weight",
                           "distilbert.embeddings.position_ids"}) {
    EXPECT_TRUE(hf_distilbert_tensor_unused(name)) << name;
  }
  EXPECT_FALSE(hf_distilbert_tensor_unused("cls.predictions.bias"));
  EXPECT_FALSE(hf_distilbert_tensor_unused("distilbert.embeddings.word_embeddings.weight"));
  EXPECT_TRUE(bert_parameter_may_be_fresh("pre_classifier.weight"));
}

TEST(HfBertNamesTest, MapsElectraModelAndHeadNames) {
  EXPECT_EQ(jetchar_electra_parameter("electra.embeddings.word_embeddings.weight"), "bert.word_embeddings.weight");
  EXPECT_EQ(jetchar_electra_parameter("electra.embeddings.LayerNorm.weight"), "bert.embedding_norm.weight");
  EXPECT_EQ(jetchar_electra_parameter("electra.embeddings_project.bias"), "bert.embeddings_project.bias");
  EXPECT_EQ(jetchar_electra_parameter("electra.encoder.layer.11.output.dense.weight"), "bert.layer11.output.weight");
  EXPECT_EQ(jetchar_electra_parameter("encoder.layer.2.attention.self.key.bias"), "bert.layer2.key.bias");  // bare
  EXPECT_EQ(jetchar_electra_parameter("embeddings_project.weight"), "bert.embeddings_project.weight");
  EXPECT_EQ(jetchar_electra_parameter("discriminator_predictions.dense.weight"), "discriminator_dense.weight");
  EXPECT_EQ(jetchar_electra_parameter("discriminator_predictions.dense_prediction.bias"),
            "discriminator_prediction.bias");
  EXPECT_EQ(jetchar_electra_parameter("qa_outputs.bias"), "qa_outputs.bias");
  EXPECT_EQ(jetchar_electra_parameter("classifier.weight"), "classifier.weight");
  // No pooler, no BERT pretraining head, no BERT prefix; the generator's head and the sequence
  // classification head are HF's other models, left unused.
  for (const char* name : {"electra.pooler.dense.weight", "cls.predictions.bias", "bert.embeddings.LayerNorm.weight",
                           "electra.embeddings_project.gamma", "discriminator_predictions.out.weight",
                           "generator_lm_head.bias", "classifier.dense.weight", ""}) {
    EXPECT_EQ(jetchar_electra_parameter(name), std::nullopt) << name;
  }
  for (const char* name : {"generator_predictions.LayerNorm.weight", "generator_lm_head.weight",
                           "classifier.out_proj.bias", "electra.embeddings.position_ids", "embeddings.position_ids"}) {
    EXPECT_TRUE(hf_electra_tensor_unused(name)) << name;
  }
  EXPECT_FALSE(hf_electra_tensor_unused("electra.pooler.dense.weight"));
  EXPECT_TRUE(bert_parameter_may_be_fresh("generator.layer0.query.weight"));
  EXPECT_TRUE(bert_parameter_may_be_fresh("discriminator_dense.weight"));
  EXPECT_FALSE(bert_parameter_may_be_fresh("bert.embeddings_project.weight"));
}

}  // namespace
}  // namespace jetchar::experiments
