#include "experiments/results_location.h"

#include <stdexcept>

namespace jetchar::experiments {

ResultsLocation ResultsLocation::from(const std::filesystem::path& path, bool must_exist) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) return {path.parent_path().empty() ? "." : path.parent_path(), path};
  if (must_exist && std::filesystem::is_directory(path, ec) && !std::filesystem::exists(path / "results.db", ec)) {
    throw std::invalid_argument("results '" + path.string() +
                                "' is a directory without results.db: not a sweep's results directory");
  }
  if (must_exist && !std::filesystem::exists(path, ec)) {
    throw std::invalid_argument("results '" + path.string() +
                                "' not found: expected a results directory (with results.db) or a results.db file");
  }
  return {path};
}

}  // namespace jetchar::experiments
