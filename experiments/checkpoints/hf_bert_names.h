// Hugging Face BERT and DistilBERT parameter names onto jetchar's (experiments/models/bert.h,
// bert_heads.h). HF's names come from its module trees.
//
// BERT (transformers/models/bert/modeling_bert.py): BertModel is
// `bert` inside every task model, with `embeddings.{word,position,token_type}_embeddings`,
// `embeddings.LayerNorm`, `encoder.layer.N.attention.self.{query,key,value}`,
// `encoder.layer.N.attention.output.{dense,LayerNorm}`, `encoder.layer.N.intermediate.dense`,
// `encoder.layer.N.output.{dense,LayerNorm}` and `pooler.dense`; the heads are `classifier`,
// `qa_outputs` and BertForMaskedLM's / BertForPreTraining's `cls.predictions` (`transform.dense`,
// `transform.LayerNorm`, `bias`, and `decoder`, whose weight is the word embeddings and whose bias
// is `cls.predictions.bias`, both tied: jetchar's model holds each once). Checkpoints converted from TensorFlow name
// LayerNorm's weight/bias gamma/beta, and a bare BertModel saves its names without the `bert.` prefix; both are read.
//
// DistilBERT (transformers/models/distilbert/modeling_distilbert.py): DistilBertModel is
// `distilbert` inside every task model, with `embeddings.{word,position}_embeddings`,
// `embeddings.LayerNorm`, `transformer.layer.N.attention.{q_lin,k_lin,v_lin,out_lin}`,
// `transformer.layer.N.sa_layer_norm`, `transformer.layer.N.ffn.{lin1,lin2}` and
// `transformer.layer.N.output_layer_norm`; the heads are `pre_classifier` + `classifier`
// (sequence classification), `classifier` (token classification) and `qa_outputs`. A bare
// DistilBertModel saves its names without the `distilbert.` prefix; that is read too.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace jetchar::experiments {

/// jetchar's parameter name for an HF tensor name ("bert.encoder.layer.3.attention.self.query.weight"
/// -> "bert.layer3.query.weight"); nullopt when the name is not one of BertModel's or the heads'.
std::optional<std::string> jetchar_bert_parameter(std::string_view hf_name);

/// For a tensor HF ties to another (`cls.predictions.decoder.weight` is the word embeddings,
/// `cls.predictions.decoder.bias` is `cls.predictions.bias`), jetchar's name of the parameter it
/// is; nullopt for every other name. A checkpoint saves such a tensor beside the one it is tied to
/// (torch.save) or instead of it (safetensors drops all but one of tied tensors).
std::optional<std::string> jetchar_bert_tied_parameter(std::string_view hf_name);

/// Tensors a model without them leaves unused, as HF does: the pretraining heads (`cls.*`; the
/// masked-LM models use `cls.predictions`, none uses BertForPreTraining's next-sentence head
/// `cls.seq_relationship`) and the `embeddings.position_ids` buffer.
bool hf_bert_tensor_unused(std::string_view hf_name);

/// jetchar's parameter name for an HF DistilBERT tensor name
/// ("distilbert.transformer.layer.3.ffn.lin1.weight" -> "bert.layer3.intermediate.weight"); nullopt
/// when the name is not one of DistilBertModel's or the heads'.
std::optional<std::string> jetchar_distilbert_parameter(std::string_view hf_name);

/// DistilBERT tensors a fine-tuning model leaves unused, as HF does: the masked-LM head of
/// DistilBertForMaskedLM (`vocab_transform`, `vocab_layer_norm`, `vocab_projector`) and the
/// `embeddings.position_ids` buffer older versions saved.
bool hf_distilbert_tensor_unused(std::string_view hf_name);

/// jetchar parameters a checkpoint may lack and that are then initialised fresh, as HF does for
/// the task heads and for a pooler the checkpoint was saved without.
bool bert_parameter_may_be_fresh(std::string_view jetchar_name);

}  // namespace jetchar::experiments
