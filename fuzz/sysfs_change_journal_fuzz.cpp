// Change journal reader (sysfs/change_journal.h): any bytes either parse (a torn last record
// dropped) or throw FormatError naming the journal, never anything else.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "sysfs/change_journal.h"
#include "sysfs/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jetchar::sysfs;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const JournalContents contents = parse_journal_text(text, "change-journal");
    // A boot tag is a whole record's field: it cannot be longer than the text it came from.
    for (const auto& entry : contents.entries) {
      if (entry.boot_id.size() > size || entry.path.size() > size) std::abort();
    }
  } catch (const FormatError& error) {
    if (error.path() != "change-journal") std::abort();
  }
  return 0;
}
