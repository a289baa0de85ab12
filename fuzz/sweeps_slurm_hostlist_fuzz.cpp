// Slurm hostlists (sweeps/slurm/hostlist.h), what `jetchar train` reads from SLURM_STEP_NODELIST:
// any text either expands to at most the limit of plain names or throws std::invalid_argument
// naming the hostlist; nothing else may escape. The names joined with ',' expand to themselves.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "sweeps/slurm/hostlist.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jetchar::sweeps;
  const std::string text(reinterpret_cast<const char*>(data), size);
  constexpr std::size_t kLimit = 4096;  // a smaller limit than Slurm's keeps each input fast
  try {
    const auto hosts = expand_hostlist(text, kLimit);
    if (hosts.empty() || hosts.size() > kLimit) std::abort();
    std::string joined;
    for (const auto& host : hosts) {
      if (host.empty() || host.find_first_of("[], \t\n\r") != std::string::npos) std::abort();
      if (!joined.empty()) joined += ',';
      joined += host;
    }
    if (expand_hostlist(joined, kLimit) != hosts) std::abort();
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).rfind("hostlist '", 0) != 0) std::abort();
  }
  return 0;
}
