// libFuzzer target for the sequence-classification file reader (TSV, CSV, JSON Lines): any byte
// string either parses into examples with a non-empty valid-UTF-8 label, a text, a pair exactly
// when a pair column was found and increasing line numbers, or raises TextFormatError.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "loaders/text/classification_file.h"
#include "loaders/text/text_error.h"
#include "loaders/text/utf8.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jetchar::loaders::text;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const auto format : {ClassificationFormat::kTsv, ClassificationFormat::kCsv, ClassificationFormat::kJsonl}) {
    try {
      const ClassificationFile file = parse_classification(text, format, "fuzz");
      std::size_t previous_line = 0;
      for (const auto& example : file.examples) {
        check(!example.label.empty());
        check(!find_invalid_utf8(example.label) && !find_invalid_utf8(example.text));
        check(example.text_pair.has_value() == file.pair_column.has_value());
        check(example.line > previous_line);
        previous_line = example.line;
      }
    } catch (const TextFormatError&) {
    }
  }
  return 0;
}
