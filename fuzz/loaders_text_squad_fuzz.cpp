// libFuzzer target for the SQuAD reader: any byte string either parses into questions whose
// answers lie inside their context, or raises TextFormatError.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "loaders/text/squad.h"
#include "loaders/text/text_error.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jetchar::loaders::text;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const SquadData squad = parse_squad(text, "fuzz.json");
    for (const SquadQuestion& q : squad.questions) {
      check(q.paragraph < squad.paragraphs.size());
      check(!q.answers.empty() || q.is_impossible);
      for (const SquadAnswer& a : q.answers) {
        check(a.start >= 0 && a.length >= 0 && a.start + a.length <= squad.paragraphs[q.paragraph].context_code_points);
      }
    }
  } catch (const TextFormatError&) {
  }
  return 0;
}
