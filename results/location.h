// Where a sweep keeps its results: a directory holding the SQLite store (results.db), a copy of
// the sweep spec it ran (sweep.textproto, which `sweep resume DIR` reads back), the resume
// journal (journal) and the lock of the one process that writes there (lock). Commands that read
// results accept the directory or the .db file itself.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace jetchar::results {

struct ResultsLocation {
  std::filesystem::path directory;
  /// The store file when it was named itself (any name); empty: `directory`/results.db.
  std::filesystem::path store_file = {};

  std::filesystem::path store() const { return store_file.empty() ? directory / "results.db" : store_file; }
  std::filesystem::path spec() const { return directory / "sweep.textproto"; }
  std::filesystem::path journal() const { return directory / "journal"; }
  /// The lock file one writer holds (sysfs/writer_lock.h): a sweep, a resume, a merge into it.
  std::filesystem::path lock() const { return directory / "lock"; }

  /// A results directory belongs to one sweep: true when it holds a copy of `spec_text` already
  /// (the sweep resumes there), false when it holds no spec yet. Throws std::invalid_argument
  /// "DIR holds results of a different sweep spec; REMEDY" when it holds another.
  bool holds_sweep_spec(const std::string& spec_text, std::string_view remedy) const;
  /// Writes the copy of the sweep spec whole or not at all (sysfs::replace_file), so that a kill
  /// never leaves a torn copy that a resume would take for a different sweep.
  void store_sweep_spec(const std::string& spec_text) const;

  /// From a directory or a store file (whatever its name: `results list old.db` reads old.db);
  /// throws std::invalid_argument naming `path` when neither exists (`must_exist`).
  static ResultsLocation from(const std::filesystem::path& path, bool must_exist = true);
};

}  // namespace jetchar::results
