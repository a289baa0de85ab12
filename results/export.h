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
/// A data-parallel epoch row also carries the recording rank's all-reduce time, exposed
/// communication and bytes, and the run's slowest and failed rank.
std::size_t export_results(const std::vector<proto::RunResult>& results, ExportFormat format, std::ostream& out);

/// One row per rank and epoch of every data-parallel run (fetch stall, compute, E2E, samples,
/// all-reduce time, exposed communication, bytes), keyed by sweep, run id, repetition, device and
/// epoch as export_results' rows are; runs of one process write none. Returns the rows written
/// (a CSV header is written only with a first row).
std::size_t export_rank_epochs(const std::vector<proto::RunResult>& results, ExportFormat format, std::ostream& out);

}  // namespace jetchar::results
