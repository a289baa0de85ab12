// Exports stored runs as flat rows, one per epoch (or one per run for inference), for pandas,
// spreadsheets and `jetchar analyze`. Column names carry their unit and match what
// analysis/record_fields.cpp reads; absent measurements are empty cells / JSON nulls.
#pragma once

#include <ostream>
#include <vector>

#include "proto/run_result.pb.h"

namespace jetchar::results {

enum class ExportFormat { kCsv, kJsonl };

/// Writes a header (CSV) and one row per epoch of every run; runs without epochs (inference,
/// failed runs) get one row. Returns the number of rows written.
std::size_t export_results(const std::vector<proto::RunResult>& results, ExportFormat format, std::ostream& out);

}  // namespace jetchar::results
