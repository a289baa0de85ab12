// What `jetchar sweep status` reads from sacct (sweeps/slurm/accounting.h): any text either
// parses into records in sacct's form or throws std::invalid_argument naming the sacct output;
// nothing else may escape, and the counts cover every non-step record.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "sweeps/slurm/accounting.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jetchar::sweeps;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto records = parse_sacct(text);
    std::size_t tasks = 0;
    for (const auto& record : records) {
      if (record.job.empty() || record.state.empty() || record.tasks == 0) std::abort();
      if (!record.step) tasks += record.tasks;
    }
    std::size_t counted = 0;
    for (const auto& [node, states] : sacct_states_by_node(records)) {
      for (const auto& [state, count] : states) counted += count;
    }
    if (counted != tasks) std::abort();
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).find("sacct output line") == std::string::npos) std::abort();
  }
  return 0;
}
