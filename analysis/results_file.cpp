#include "analysis/results_file.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "analysis/csv_table.h"
#include "analysis/input_error.h"
#include "analysis/record_fields.h"
#include "analysis/results_store_reader.h"

namespace jetchar::analysis {

std::vector<RunRecord> parse_results_csv(const std::string& text, const std::filesystem::path& file) {
  CsvTable table = parse_csv(text, file);
  if (table.column("workload") < 0) {
    throw InputError({file, 1}, "has no 'workload' column; the header needs at least workload and epoch_time_s");
  }
  std::vector<RunRecord> records;
  records.reserve(table.rows.size());
  for (const CsvRow& row : table.rows) {
    RunRecord record;
    record.source = fmt::format("{}:{}", file.string(), row.line);
    for (std::size_t i = 0; i < table.header.size(); ++i) {
      set_record_field(record, table.header[i], row.fields[i], {file, row.line});
    }
    check_record(record, {file, row.line, std::string("workload")});
    records.push_back(std::move(record));
  }
  return records;
}

std::vector<RunRecord> parse_results_jsonl(const std::string& text, const std::filesystem::path& file) {
  std::vector<RunRecord> records;
  std::size_t line = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view content(text.data() + pos, end - pos);
    pos = end + 1;
    ++line;
    if (content.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    nlohmann::json object;
    try {
      object = nlohmann::json::parse(content);
    } catch (const nlohmann::json::exception& e) {  // a syntax error, or a number out of range (-2e9999)
      throw InputError({file, line}, fmt::format("not valid JSON ({})", e.what()));
    }
    if (!object.is_object()) throw InputError({file, line}, "expected one JSON object per line");
    RunRecord record;
    record.source = fmt::format("{}:{}", file.string(), line);
    for (const auto& [key, value] : object.items()) {
      std::string text_value;
      if (value.is_null()) continue;
      if (value.is_string()) text_value = value.get<std::string>();
      else if (value.is_number()) text_value = value.dump();
      else if (value.is_boolean()) text_value = value.get<bool>() ? "true" : "false";
      else
        throw InputError({file, line, key},
                         fmt::format("{} is not a plain value; expected a string or a number", value.dump()));
      set_record_field(record, key, text_value, {file, line});
    }
    check_record(record, {file, line, std::string("workload")});
    records.push_back(std::move(record));
  }
  return records;
}

std::vector<RunRecord> load_results(const std::filesystem::path& file) {
  // A results directory or a results.db (found by its SQLite header, whatever its name); a
  // directory without results.db gets the store reader's error, which says what is valid.
  std::error_code ec;
  const std::string ext = file.extension().string();
  if (std::filesystem::is_directory(file, ec) || is_results_store(file) || ext == ".db" || ext == ".sqlite") {
    return ResultsStoreReader(file).records();
  }
  std::string text = read_text_file(file);
  if (ext == ".jsonl" || ext == ".ndjson" || ext == ".json") return parse_results_jsonl(text, file);
  return parse_results_csv(text, file);
}

}  // namespace jetchar::analysis
