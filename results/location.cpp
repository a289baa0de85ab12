#include "results/location.h"

#include <fmt/format.h>

#include <stdexcept>

#include "sysfs/whole_file.h"

namespace jetchar::results {

bool ResultsLocation::holds_sweep_spec(const std::string& spec_text, std::string_view remedy) const {
  if (!std::filesystem::exists(spec())) return false;
  if (sysfs::read_whole_file(spec()) != spec_text) {
    throw std::invalid_argument(
        fmt::format("{} holds results of a different sweep spec; {}", directory.string(), remedy));
  }
  return true;
}

void ResultsLocation::store_sweep_spec(const std::string& spec_text) const { sysfs::replace_file(spec(), spec_text); }

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

}  // namespace jetchar::results
