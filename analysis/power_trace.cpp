#include "analysis/power_trace.h"

#include <fmt/format.h>

#include "analysis/csv_table.h"
#include "analysis/input_error.h"
#include "analysis/record_fields.h"

namespace jetchar::analysis {

std::vector<TraceSample> parse_power_trace(const std::string& text, const std::filesystem::path& file) {
  CsvTable table = parse_csv(text, file);
  const int t_col = table.column("t_s"), p_col = table.column("power_w"), m_col = table.column("marker");
  if (t_col < 0 || p_col < 0) {
    throw InputError({file, 1}, "needs the columns t_s and power_w (and optionally marker)");
  }
  std::vector<TraceSample> samples;
  for (const CsvRow& row : table.rows) {
    auto value = [&](int col, const char* what) {
      const std::string& cell = row.fields[static_cast<std::size_t>(col)];
      auto v = parse_number(cell);
      if (!v)
        throw InputError({file, row.line, table.header[static_cast<std::size_t>(col)]},
                         fmt::format("'{}' is not a number; expected {}", cell, what));
      return *v;
    };
    TraceSample s{value(t_col, "seconds"), value(p_col, "watts >= 0"), std::nullopt};
    if (s.power_w < 0)
      throw InputError({file, row.line, std::string("power_w")},
                       fmt::format("{} is negative; expected watts >= 0", s.power_w));
    if (!samples.empty() && s.t_s < samples.back().t_s) {
      throw InputError({file, row.line, std::string("t_s")},
                       fmt::format("{} is earlier than the previous sample ({}); times must not decrease", s.t_s,
                                   samples.back().t_s));
    }
    if (m_col >= 0 && !row.fields[static_cast<std::size_t>(m_col)].empty())
      s.marker = row.fields[static_cast<std::size_t>(m_col)];
    samples.push_back(std::move(s));
  }
  if (samples.empty()) throw InputError({file}, "has no samples");
  return samples;
}

std::vector<TraceSample> load_power_trace(const std::filesystem::path& file) {
  return parse_power_trace(read_text_file(file), file);
}

}  // namespace jetchar::analysis
