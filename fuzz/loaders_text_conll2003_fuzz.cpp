// libFuzzer target for the CoNLL-2003 reader: any byte string either parses into sentences whose
// columns line up and whose labels are valid IOB2, or raises TextFormatError.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "loaders/text/conll2003.h"
#include "loaders/text/text_error.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jetchar::loaders::text;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const std::optional<TagScheme> declared : {std::optional<TagScheme>{}, std::optional{TagScheme::kIob2}}) {
    try {
      const ConllCorpus corpus = parse_conll2003(text, "fuzz.txt", declared);
      std::size_t tokens = 0;
      for (const ConllSentence& s : corpus.sentences) {
        check(!s.words.empty());
        check(s.pos.size() == s.words.size() && s.chunk.size() == s.words.size() && s.ner.size() == s.words.size());
        for (std::size_t i = 0; i < s.ner.size(); ++i) {
          check(s.ner[i] >= 0 && s.ner[i] < static_cast<std::int8_t>(kConllNerLabels.size()));
          // IOB2: an I-X continues an entity of type X.
          if (s.ner[i] != 0 && s.ner[i] % 2 == 0) check(i > 0 && (s.ner[i - 1] + 1) / 2 == (s.ner[i] + 1) / 2);
        }
        tokens += s.words.size();
      }
      check(tokens == corpus.tokens);
    } catch (const TextFormatError&) {
    }
  }
  return 0;
}
