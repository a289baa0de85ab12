// Hugging Face BERT, DistilBERT and ELECTRA parameter names onto jetchar's (experiments/models/bert.h,
// bert_heads.h, electra.h). HF's names come from its module trees.
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
//
// ELECTRA (transformers/models/electra/modeling_electra.py): ElectraModel is `electra` inside every
// task model, with BertModel's `embeddings.*` and `encoder.layer.N.*` names (its tables of width
// embedding_size), `embeddings_project` where that width differs from the hidden size, and no
// pooler; the heads are ElectraForPreTraining's `discriminator_predictions.{dense,dense_prediction}`,
// `qa_outputs` and ElectraForTokenClassification's `classifier`. ElectraForMaskedLM's
// `generator_predictions.*` and `generator_lm_head.*` and ElectraForSequenceClassification's
// `classifier.{dense,out_proj}` belong to models jetchar loads no checkpoint into; they are left
// unused. A bare ElectraModel saves its names without the `electra.` prefix; that is read too.
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

/// jetchar's parameter name for an HF ELECTRA tensor name
/// ("electra.embeddings_project.weight" -> "bert.embeddings_project.weight",
/// "discriminator_predictions.dense.bias" -> "discriminator_dense.bias"); nullopt when the name is
/// not one of ElectraModel's or the heads jetchar builds.
std::optional<std::string> jetchar_electra_parameter(std::string_view hf_name);

/// ELECTRA tensors jetchar's models leave unused: the generator's masked-LM head, the sequence
/// classification head and the `embeddings.position_ids` buffer.
bool hf_electra_tensor_unused(std::string_view hf_name);

/// jetchar parameters a checkpoint may lack and that are then initialised fresh, as HF does for
/// the task heads and for a pooler the checkpoint was saved without; ELECTRA's discriminator head
/// and its generator (whose released checkpoint is a folder of its own) alike.
bool bert_parameter_may_be_fresh(std::string_view jetchar_name);

}  // namespace jetchar::experiments
