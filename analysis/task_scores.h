// A task score (dev F1, exact match, accuracy) over the runs of one configuration: the seed study
// trains each setting with several seeds, and a score's mean with its interval says whether two
// settings differ by more than the seeds do. Seeds and repetitions are samples of a
// configuration, not axes (results/schema/setting_columns.h), so each is one run here.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "analysis/bootstrap.h"
#include "analysis/run_record.h"

namespace jetchar::analysis {

struct TaskScoreRow {
  ConfigKey key;
  std::string metric;  ///< the export's column, e.g. "eval_squad_f1_ratio"
  std::size_t runs = 0;
  double mean = 0;
  std::optional<double> stddev;          ///< sample stddev, from 2 runs
  std::optional<ConfidenceInterval> ci;  ///< Student t interval of the mean at `level`, from 2 runs
};

/// The task-score metrics (names starting "eval_" and ending "_ratio") of OK runs, one value per
/// run: its last epoch's that has the metric. One row per configuration and metric, sorted by key
/// and metric. A run is its run id (its device and repetition where it has none).
std::vector<TaskScoreRow> task_scores(const std::vector<RunRecord>& records, double level = 0.95);

}  // namespace jetchar::analysis
