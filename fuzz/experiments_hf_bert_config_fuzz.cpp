// libFuzzer target for config.json of a Hugging Face BERT, DistilBERT or ELECTRA folder: any byte
// string either gives a config jetchar can build (positive sizes, hidden a multiple of the heads,
// dropouts within [0, 1], no token types for DistilBERT, embeddings as wide as the hidden size but
// for ELECTRA, labels all named) or raises CheckpointError.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "experiments/checkpoints/checkpoint_error.h"
#include "experiments/checkpoints/hf_bert_config.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jetchar::experiments;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto config = parse_hf_bert_config(text, "fuzz/config.json");
    check(config.hidden_size > 0 && config.num_attention_heads > 0 && config.num_hidden_layers > 0);
    check(config.hidden_size % config.num_attention_heads == 0);
    check(config.vocab_size > 0 && config.max_position_embeddings > 0 && config.type_vocab_size >= 0);
    check(config.model_type != HfModelType::kDistilBert || config.type_vocab_size == 0);
    check(config.embedding_size > 0);
    check(config.model_type == HfModelType::kElectra || config.embedding_size == config.hidden_size);
    for (const double p : {config.hidden_dropout_prob, config.attention_probs_dropout_prob, config.sequence_dropout,
                           config.qa_dropout}) {
      check(p >= 0 && p <= 1);
    }
    for (const auto& label : config.labels) check(!label.empty());
  } catch (const CheckpointError&) {
  }
  return 0;
}
