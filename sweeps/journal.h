// The resume journal of a sweep: an append-only file in the results directory recording which
// run started and which finished. Completed results live in the store (atomically); the journal
// tells a resumed sweep which run was interrupted, so it can be reported and re-run.
#pragma once

#include <filesystem>
#include <set>
#include <string>

namespace jetchar::sweeps {

class SweepJournal {
 public:
  /// Opens (creating) `file`; reads what an earlier process recorded. A torn last line (power
  /// loss mid-append) is ignored.
  explicit SweepJournal(std::filesystem::path file);

  void started(const std::string& run_id);
  void finished(const std::string& run_id);

  /// Runs that started and never finished in an earlier process.
  const std::set<std::string>& interrupted() const { return interrupted_; }
  const std::set<std::string>& finished_runs() const { return finished_; }

 private:
  void append(const std::string& line);

  std::filesystem::path file_;
  std::set<std::string> interrupted_;
  std::set<std::string> finished_;
};

}  // namespace jetchar::sweeps
