#include "analysis/modes_file.h"

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <tuple>

#include "analysis/csv_table.h"
#include "analysis/input_error.h"
#include "analysis/record_fields.h"

namespace jetchar::analysis {
namespace {

bool is_mode_column(const std::string& column) {
  if (column == "mode" || column == "power_mode" || column == "cpu_cores") return true;
  for (const char* knob : {"cpu_freq_", "gpu_freq_", "emc_freq_"}) {
    for (const char* unit : {"hz", "khz", "mhz"}) {
      if (column == std::string(knob) + unit) return true;
    }
  }
  return false;
}

}  // namespace

std::vector<PowerMode> parse_modes_csv(const std::string& text, const std::filesystem::path& file) {
  CsvTable table = parse_csv(text, file);
  for (const std::string& column : table.header) {
    if (!is_mode_column(column)) {
      throw InputError({file, 1, column},
                       "is not a power-mode column; valid: mode, cpu_cores, cpu_freq_{hz,khz,mhz}, "
                       "gpu_freq_{hz,khz,mhz}, emc_freq_{hz,khz,mhz}");
    }
  }
  // Far beyond any board's modes (an AGX Orin has about 29,000 knob combinations), and checked
  // before the rows become modes.
  constexpr std::size_t kMaxModes = 1000000;
  if (table.rows.size() > kMaxModes) {
    throw InputError({file}, fmt::format("lists {} power modes; at most {}", table.rows.size(), kMaxModes));
  }
  std::vector<PowerMode> modes;
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>, std::size_t> line_of;
  for (const CsvRow& row : table.rows) {
    RunRecord record;
    for (std::size_t i = 0; i < table.header.size(); ++i) {
      set_record_field(record, table.header[i], row.fields[i], {file, row.line});
    }
    if (!record.mode.has_knobs()) {
      throw InputError({file, row.line}, fmt::format("power mode '{}' lacks a knob; every row needs cpu_cores, "
                                                     "cpu_freq, gpu_freq and emc_freq",
                                                     record.mode.label()));
    }
    // The same mode twice would be predicted and counted twice.
    const auto& m = record.mode;
    const auto [earlier, added] =
        line_of.emplace(std::tuple{*m.cpu_cores, *m.cpu_freq_khz, *m.gpu_freq_khz, *m.emc_freq_khz}, row.line);
    if (!added) {
      throw InputError(
          {file, row.line},
          fmt::format("power mode '{}' is listed on line {} already; list each mode once", m.label(), earlier->second));
    }
    modes.push_back(record.mode);
  }
  if (modes.empty()) throw InputError({file}, "lists no power modes");
  return modes;
}

std::vector<PowerMode> load_modes(const std::filesystem::path& file) {
  return parse_modes_csv(read_text_file(file), file);
}

}  // namespace jetchar::analysis
