// Loading run records from files: CSV (one row per run or per epoch, header with column names) and
// JSONL (one flat JSON object per line, the same keys), or a sweep's results directory / results.db.
// Layout: analysis/README.md.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "analysis/run_record.h"

namespace jetchar::analysis {

std::vector<RunRecord> parse_results_csv(const std::string& text, const std::filesystem::path& file);
std::vector<RunRecord> parse_results_jsonl(const std::string& text, const std::filesystem::path& file);

/// Reads a results directory or SQLite results store (results_store_reader.h); otherwise `file` as
/// JSONL when it ends in .jsonl/.ndjson/.json, as CSV otherwise. Throws InputError naming file,
/// line (or run), column and value on bad input.
std::vector<RunRecord> load_results(const std::filesystem::path& file);

}  // namespace jetchar::analysis
