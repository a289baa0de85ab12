// Fuzzes the board-fixture manifest parser (jetson/simulated/board_fixture.h): any text must parse or
// throw FormatError/IoError (include/copy of files that do not exist); never crash or hang.
// Expansion is not fuzzed: it writes files.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "jetson/simulated/board_fixture.h"
#include "sysfs/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;  // repeat blocks multiply; keep each input cheap
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)jetchar::jetson::FixtureManifest::parse(text, "/nonexistent-fuzz-dir", "fuzz.manifest");
  } catch (const jetchar::sysfs::FormatError&) {
  } catch (const jetchar::sysfs::IoError&) {
  }
  return 0;
}
