// Hugging Face BERT parameter names onto jetchar's (experiments/models/bert.h, bert_heads.h).
// HF's names come from its module tree (transformers/models/bert/modeling_bert.py): BertModel is
// `bert` inside every task model, with `embeddings.{word,position,token_type}_embeddings`,
// `embeddings.LayerNorm`, `encoder.layer.N.attention.self.{query,key,value}`,
// `encoder.layer.N.attention.output.{dense,LayerNorm}`, `encoder.layer.N.intermediate.dense`,
// `encoder.layer.N.output.{dense,LayerNorm}` and `pooler.dense`; the heads are `classifier` and
// `qa_outputs`. Checkpoints converted from TensorFlow name LayerNorm's weight/bias gamma/beta,
// and a bare BertModel saves its names without the `bert.` prefix; both are read.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace jetchar::experiments {

/// jetchar's parameter name for an HF tensor name ("bert.encoder.layer.3.attention.self.query.weight"
/// -> "bert.layer3.query.weight"); nullopt when the name is not one of BertModel's or the heads'.
std::optional<std::string> jetchar_bert_parameter(std::string_view hf_name);

/// Tensors a fine-tuning model leaves unused, as HF does: the pretraining heads (`cls.*`) and the
/// `embeddings.position_ids` buffer.
bool hf_bert_tensor_unused(std::string_view hf_name);

/// jetchar parameters a checkpoint may lack and that are then initialised fresh, as HF does for
/// the task heads and for a pooler the checkpoint was saved without.
bool bert_parameter_may_be_fresh(std::string_view jetchar_name);

}  // namespace jetchar::experiments
