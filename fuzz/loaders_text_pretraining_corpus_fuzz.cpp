// libFuzzer target for the pretraining corpus (loaders/text/pretraining_corpus.h) and what is made
// of it: any byte string either parses into non-empty documents of stripped, non-empty, valid UTF-8
// sentences on increasing lines, or raises TextFormatError. What parses is tokenized with a small
// vocabulary, packed (pretraining_instances.h) at a length and short-sequence share the first byte
// picks, and masked (masked_lm_masking.h): every sequence must be [CLS] A [SEP] (B [SEP]) within
// max_length with non-empty segments, and masking must leave specials alone and target exactly the
// positions it changed or kept.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "loaders/text/masked_lm_masking.h"
#include "loaders/text/pretraining_corpus.h"
#include "loaders/text/pretraining_instances.h"
#include "loaders/text/text_error.h"
#include "loaders/text/utf8.h"
#include "loaders/text/wordpiece_tokenizer.h"

namespace {

using namespace jetchar::loaders::text;

void check(bool condition) {
  if (!condition) std::abort();
}

const WordPieceTokenizer& tokenizer() {
  static const WordPieceTokenizer t(
      Vocab::parse("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\non\nmat\n.\n,\na\n##a\nb\n##b\n##s\ns\n東\n京\n",
                   "fuzz-vocab.txt"));
  return t;
}

void check_sequences(const PretrainingInstances& instances, std::size_t max_length, std::uint64_t seed) {
  const auto& vocab = tokenizer().vocab();
  const MaskingTokens tokens{vocab.cls_id(), vocab.sep_id(), vocab.pad_id(), *vocab.mask_id(), vocab.size()};
  check(instances.starts.size() == instances.size() + 1 && instances.starts.back() == instances.ids.size());
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const std::size_t begin = instances.starts[i];
    const std::size_t end = instances.starts[i + 1];
    const std::size_t second = instances.second[i];
    check(end - begin >= 3 && end - begin <= max_length);
    check(instances.ids[begin] == vocab.cls_id() && instances.ids[end - 1] == vocab.sep_id());
    check(second > begin + 2 && second <= end && instances.ids[second - 1] == vocab.sep_id());
    check(second == end || end - second >= 2);  // B holds a token and its [SEP]
    std::vector<std::int64_t> ids(max_length, vocab.pad_id());
    for (std::size_t p = begin; p < end; ++p) ids[p - begin] = instances.ids[p];
    const auto original = ids;
    std::vector<std::int64_t> targets(max_length);
    jetchar::loaders::Rng rng(seed, 0, i);
    const auto masked = mask_tokens(ids, targets, end - begin, tokens, 0.15, rng);
    std::size_t scored = 0;
    bool maskable = false;
    for (std::size_t p = 0; p < end - begin; ++p) {
      maskable =
          maskable || (original[p] != vocab.cls_id() && original[p] != vocab.sep_id() && original[p] != vocab.pad_id());
    }
    for (std::size_t p = 0; p < max_length; ++p) {
      if (targets[p] == kIgnoredTarget) {
        check(ids[p] == original[p]);
        continue;
      }
      ++scored;
      check(p < end - begin && targets[p] == original[p]);
      check(original[p] != vocab.cls_id() && original[p] != vocab.sep_id() && original[p] != vocab.pad_id());
      check(ids[p] >= 0 && ids[p] < vocab.size());
    }
    check(scored == masked && (masked >= 1) == maskable);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t max_length = 5 + data[0] % 60;
  const double short_seq_prob = (data[0] >> 6) / 3.0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  PretrainingCorpus corpus;
  try {
    corpus = parse_pretraining_corpus(text, "fuzz");
  } catch (const TextFormatError&) {
    return 0;
  }
  check(corpus.sentences > 0);
  std::size_t previous_line = 0, sentences = 0;
  std::vector<std::vector<std::vector<std::int32_t>>> documents;
  for (const auto& document : corpus.documents) {
    check(!document.empty());
    auto& tokenized = documents.emplace_back();
    for (const auto& sentence : document) {
      check(!sentence.text.empty() && !find_invalid_utf8(sentence.text));
      check(sentence.text.front() != ' ' && sentence.text.back() != ' ');
      check(sentence.line > previous_line);
      previous_line = sentence.line;
      ++sentences;
      auto& ids = tokenized.emplace_back();
      for (const auto& piece : tokenizer().tokenize(sentence.text)) ids.push_back(static_cast<std::int32_t>(piece.id));
    }
  }
  check(sentences == corpus.sentences);
  const auto& vocab = tokenizer().vocab();
  const auto instances =
      pack_pretraining_instances(documents, static_cast<std::int32_t>(vocab.cls_id()),
                                 static_cast<std::int32_t>(vocab.sep_id()), {max_length, short_seq_prob, size});
  check_sequences(instances, max_length, size);
  return 0;
}
