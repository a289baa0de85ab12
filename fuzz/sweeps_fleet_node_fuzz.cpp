// What a fleet task and `sweep submit` read from users: the --nodes list and the node config file
// (text format). Any input either parses or throws std::invalid_argument (SpecError is one) naming
// the input; nothing else may escape, and parsed node names are plain and unique.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>

#include "sweeps/slurm/submission.h"
#include "sweeps/spec_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jetchar::sweeps;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto names = parse_node_names(text, "--nodes");
    std::set<std::string> unique(names.begin(), names.end());
    if (unique.size() != names.size() || names.empty()) std::abort();
    for (const auto& name : names) {
      if (name.empty() || name.find_first_of(",[]") != std::string::npos) std::abort();
    }
    SlurmSubmitOptions options;
    options.results = "/shared/fleet";
    options.nodes = names;
    (void)plan_slurm_submission(names.size() * 2 + 1, options);
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).find("--nodes") == std::string::npos) std::abort();
  }
  static const std::filesystem::path file = std::filesystem::temp_directory_path() / "jetchar-fuzz-node.textproto";
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
  try {
    (void)load_node_config(file);
  } catch (const SpecError& e) {
    if (e.source() != file.string()) std::abort();
  }
  return 0;
}
