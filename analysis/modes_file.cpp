#include "analysis/modes_file.h"

#include <fmt/format.h>

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
  std::vector<PowerMode> modes;
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
    modes.push_back(record.mode);
  }
  if (modes.empty()) throw InputError({file}, "lists no power modes");
  return modes;
}

std::vector<PowerMode> load_modes(const std::filesystem::path& file) {
  return parse_modes_csv(read_text_file(file), file);
}

}  // namespace jetchar::analysis
