#include "loaders/text/conll2003_dataset.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "loaders/text/token_sample.h"

namespace jetchar::loaders::text {

std::vector<std::int64_t> first_piece_labels(std::span<const std::int64_t> word_ids,
                                             std::span<const std::int8_t> word_labels) {
  std::vector<std::int64_t> labels(word_ids.size(), kIgnoreLabel);
  std::int64_t previous = -1;
  for (std::size_t i = 0; i < word_ids.size(); ++i) {
    const std::int64_t word = word_ids[i];
    if (word >= 0 && word != previous && static_cast<std::size_t>(word) < word_labels.size()) {
      // NOLINTNEXTLINE(bugprone-signed-char-misuse): an int8_t label is a number; -100 must stay -100
      labels[i] = word_labels[static_cast<std::size_t>(word)];
    }
    previous = word;
  }
  return labels;
}

Conll2003Dataset::Conll2003Dataset(const std::filesystem::path& file, const WordPieceTokenizer& tokenizer,
                                   std::size_t max_length, std::optional<TagScheme> scheme, std::string name)
    : max_length_(max_length),
      cls_id_(tokenizer.vocab().cls_id()),
      sep_id_(tokenizer.vocab().sep_id()),
      pad_id_(tokenizer.vocab().pad_id()) {
  if (max_length < 2) {
    throw std::invalid_argument(
        fmt::format("{}: max_length {} leaves no room for [CLS] and [SEP] (at least 2)", file.string(), max_length));
  }
  const ConllCorpus corpus = read_conll2003(file, scheme);
  scheme_ = corpus.scheme;
  documents_ = corpus.documents;
  starts_.reserve(corpus.sentences.size() + 1);
  starts_.push_back(0);
  for (const ConllSentence& sentence : corpus.sentences) {
    // Unpadded: the layout is added when a sample is written.
    const Encoding encoding = tokenizer.encode_words(sentence.words, max_length, false,
                                                     fmt::format("{}: line {}", file.string(), sentence.line));
    truncated_sentences_ += encoding.truncated;
    const std::vector<std::int64_t> labels = first_piece_labels(encoding.word_ids, sentence.ner);
    std::vector<bool> labelled(sentence.words.size(), false);
    for (std::size_t i = 1; i + 1 < encoding.length; ++i) {
      ids_.push_back(static_cast<std::int32_t>(encoding.input_ids[i]));
      labels_.push_back(static_cast<std::int8_t>(labels[i]));
      labelled[static_cast<std::size_t>(encoding.word_ids[i])] = true;
    }
    if (!encoding.truncated)
      words_without_pieces_ += static_cast<std::size_t>(std::count(labelled.begin(), labelled.end(), false));
    starts_.push_back(ids_.size());
  }
  info_.name = name.empty() ? file.filename().string() : std::move(name);
  info_.format = "conll2003";
  info_.root = file;
  info_.classes.assign(kConllNerLabels.begin(), kConllNerLabels.end());
  info_.layout.input_type = InputType::kInt64;
  const auto length = static_cast<std::int64_t>(max_length);
  info_.layout.input_shape = {length};
  info_.layout.target_shape = {length};
  info_.layout.has_attention_mask = true;
  info_.layout.has_token_type_ids = true;
  info_.files = {file};
  info_.bytes = total_file_bytes(info_.files);
  if (truncated_sentences_ > 0) {
    info_.notes.push_back(
        fmt::format("{}: {} of {} sentences have more than {} word pieces with [CLS] and [SEP] and "
                    "were cut to fit: their last words are not in the samples",
                    file.string(), truncated_sentences_, corpus.sentences.size(), max_length));
  }
}

std::filesystem::path Conll2003Dataset::split_file(const std::filesystem::path& dir, const std::string& split) {
  std::vector<std::string> names;
  if (split == "train") {
    names = {"train.txt", "eng.train"};
  } else if (split == "validation" || split == "valid" || split == "dev" || split == "testa") {
    names = {"valid.txt", "eng.testa"};
  } else if (split == "test" || split == "testb") {
    names = {"test.txt", "eng.testb"};
  } else {
    throw std::invalid_argument(fmt::format("CoNLL-2003 split '{}' is not one of train, validation, test", split));
  }
  for (const auto& name : names) {
    if (std::filesystem::is_regular_file(dir / name)) return dir / name;
  }
  throw std::invalid_argument(
      fmt::format("{}: no CoNLL-2003 {} file (looked for {})", dir.string(), split, fmt::join(names, ", ")));
}

SampleStatus Conll2003Dataset::get(std::int64_t index, Rng& /*rng: no augmentation*/, const SampleOut& out) const {
  if (index < 0 || index >= size()) {
    return SampleStatus::failure(fmt::format("{}: sample {} out of range 0..{}", info_.name, index, size() - 1));
  }
  if (!fits_token_sample(out, max_length_, max_length_)) {
    return SampleStatus::failure(
        fmt::format("{}: sample {} needs {} positions in every output slice", info_.name, index, max_length_));
  }
  const std::size_t begin = starts_[static_cast<std::size_t>(index)];
  const std::size_t end = starts_[static_cast<std::size_t>(index) + 1];
  const std::size_t pieces = end - begin;
  write_single_sequence(out, std::span(ids_).subspan(begin, pieces), cls_id_, sep_id_, pad_id_);
  std::int64_t* target = out.target.data();
  target[0] = kIgnoreLabel;
  // NOLINTNEXTLINE(bugprone-signed-char-misuse): an int8_t label is a number; -100 must stay -100
  for (std::size_t i = 0; i < pieces; ++i) target[i + 1] = labels_[begin + i];
  std::fill(target + pieces + 1, target + max_length_, kIgnoreLabel);
  return SampleStatus::success(pieces * (sizeof(std::int32_t) + sizeof(std::int8_t)));
}

}  // namespace jetchar::loaders::text
