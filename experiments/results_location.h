// Where a sweep keeps its results: a directory holding the SQLite store (results.db), a copy of
// the sweep spec it ran (sweep.textproto, which `sweep resume DIR` reads back) and the resume
// journal (journal). Commands that read results accept the directory or the .db file itself.
#pragma once

#include <filesystem>

namespace jetchar::experiments {

struct ResultsLocation {
  std::filesystem::path directory;
  /// The store file when it was named itself (any name); empty: `directory`/results.db.
  std::filesystem::path store_file = {};

  std::filesystem::path store() const { return store_file.empty() ? directory / "results.db" : store_file; }
  std::filesystem::path spec() const { return directory / "sweep.textproto"; }
  std::filesystem::path journal() const { return directory / "journal"; }

  /// From a directory or a store file (whatever its name: `results list old.db` reads old.db);
  /// throws std::invalid_argument naming `path` when neither exists (`must_exist`).
  static ResultsLocation from(const std::filesystem::path& path, bool must_exist = true);
};

}  // namespace jetchar::experiments
