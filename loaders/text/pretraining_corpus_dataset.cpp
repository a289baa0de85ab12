#include "loaders/text/pretraining_corpus_dataset.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "loaders/text/pretraining_corpus.h"
#include "loaders/text/text_error.h"

namespace jetchar::loaders::text {

PretrainingCorpusDataset::PretrainingCorpusDataset(const std::filesystem::path& file,
                                                   const WordPieceTokenizer& tokenizer,
                                                   const PretrainingCorpusOptions& options, std::string name)
    : max_length_(options.packing.max_length), mask_prob_(options.mask_prob) {
  if (!(options.mask_prob > 0.0 && options.mask_prob <= 1.0)) {
    throw std::invalid_argument(
        fmt::format("{}: mask_prob {} is not a share of tokens in (0, 1]", file.string(), options.mask_prob));
  }
  const Vocab& vocab = tokenizer.vocab();
  const auto mask_id = vocab.mask_id();
  if (!mask_id) {
    throw TextFormatError(fmt::format("vocabulary {} has no [MASK] token, which masked-LM pretraining needs",
                                      std::string(vocab.source())));
  }
  masking_ = {vocab.cls_id(), vocab.sep_id(), vocab.pad_id(), *mask_id, vocab.size()};
  const PretrainingCorpus corpus = read_pretraining_corpus(file);
  std::vector<std::vector<std::vector<std::int32_t>>> documents;
  documents.reserve(corpus.documents.size());
  for (const auto& document : corpus.documents) {
    auto& sentences = documents.emplace_back();
    for (const auto& sentence : document) {
      auto& ids = sentences.emplace_back();
      for (const auto& piece : tokenizer.tokenize(sentence.text, fmt::format("{}:{}", file.string(), sentence.line))) {
        ids.push_back(static_cast<std::int32_t>(piece.id));
      }
      tokens_ += ids.size();
    }
  }
  if (tokens_ == 0) {
    throw TextFormatError(
        fmt::format("{}: its {} sentences hold no WordPiece token (only control or format characters)", file.string(),
                    corpus.sentences));
  }
  documents_ = corpus.documents.size();
  sentences_ = corpus.sentences;
  instances_ = pack_pretraining_instances(documents, static_cast<std::int32_t>(vocab.cls_id()),
                                          static_cast<std::int32_t>(vocab.sep_id()), options.packing);
  info_.name = name.empty() ? file.filename().string() : std::move(name);
  info_.format = "text-corpus";
  info_.root = file;
  info_.layout.input_type = InputType::kInt64;
  info_.layout.input_shape = {static_cast<std::int64_t>(max_length_)};
  info_.layout.target_shape = {static_cast<std::int64_t>(max_length_)};
  info_.layout.target_vocab_size = vocab.size();
  info_.layout.has_attention_mask = true;
  info_.layout.has_token_type_ids = true;
  info_.files = {file};
  info_.bytes = total_file_bytes(info_.files);
  if (instances_.truncated_tokens > 0) {
    info_.notes.push_back(fmt::format("{} of {} corpus tokens were cut to fit sequences of {} positions",
                                      instances_.truncated_tokens, tokens_, max_length_));
  }
}

SampleStatus PretrainingCorpusDataset::get(std::int64_t index, Rng& rng, const SampleOut& out) const {
  if (index < 0 || index >= size()) {
    return SampleStatus::failure(fmt::format("{}: sample {} out of range 0..{}", info_.name, index, size() - 1));
  }
  if (out.input_i64.size() != max_length_ || out.attention_mask.size() != max_length_ ||
      out.token_type_ids.size() != max_length_ || out.target.size() != max_length_) {
    return SampleStatus::failure(
        fmt::format("{}: sample {} needs {} positions and as many targets", info_.name, index, max_length_));
  }
  const auto i = static_cast<std::size_t>(index);
  const std::size_t begin = instances_.starts[i];
  const std::size_t length = instances_.starts[i + 1] - begin;
  const std::size_t second = instances_.second[i];
  std::int64_t* ids = out.input_i64.data();
  std::int64_t* types = out.token_type_ids.data();
  std::int64_t* mask = out.attention_mask.data();
  for (std::size_t p = 0; p < length; ++p) {
    ids[p] = instances_.ids[begin + p];
    types[p] = begin + p >= second ? 1 : 0;
    mask[p] = 1;
  }
  std::fill(ids + length, ids + max_length_, masking_.pad_id);
  std::fill(types + length, types + max_length_, 0);
  std::fill(mask + length, mask + max_length_, 0);
  mask_tokens(out.input_i64, out.target, length, masking_, mask_prob_, rng);
  return SampleStatus::success(length * sizeof(std::int32_t));
}

}  // namespace jetchar::loaders::text
