// The mapping from column names (CSV header, JSONL keys) to RunRecord fields, shared by every
// reader so the formats cannot drift apart. The layout is documented in analysis/README.md.
#pragma once

#include <string_view>

#include "analysis/input_error.h"
#include "analysis/run_record.h"

namespace jetchar::analysis {

/// Sets the field `column` of `record` from `text`; an empty text means "missing" and leaves the
/// field unset. Unknown columns whose name ends in a unit suffix (_s, _ms, _j, _w, _bytes, ...) are
/// numeric metrics; other unknown columns are swept axes. Throws InputError naming `where`.
void set_record_field(RunRecord& record, std::string_view column, std::string_view text, InputLocation where);

/// Checks what every record needs (a workload). Throws InputError naming `where`.
void check_record(const RunRecord& record, const InputLocation& where);

/// Columns that describe the run but are neither axes nor metrics (run_id, sweep, reason, ...).
bool is_informational_column(std::string_view column);

/// A finite number; nullopt when `text` is not one (trailing characters count as not a number).
std::optional<double> parse_number(std::string_view text);

}  // namespace jetchar::analysis
