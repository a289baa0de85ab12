#include "analysis/task_scores.h"

#include <boost/math/distributions/students_t.hpp>

#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "analysis/statistics.h"

namespace jetchar::analysis {
namespace {

bool is_task_score(const std::string& metric) { return metric.starts_with("eval_") && metric.ends_with("_ratio"); }

// Which run a record belongs to.
std::tuple<std::string, std::string, int> run_of(const RunRecord& r) {
  return {r.run_id.value_or(""), r.device.value_or(""), r.repetition.value_or(0)};
}

}  // namespace

std::vector<TaskScoreRow> task_scores(const std::vector<RunRecord>& records, double level) {
  // (config, metric) -> run -> (epoch, value) of the run's last epoch with the metric.
  std::map<std::pair<ConfigKey, std::string>,
           std::map<std::tuple<std::string, std::string, int>, std::pair<int, double>>>
      scores;
  for (const RunRecord& r : records) {
    if (r.status != RunStatus::kOk) continue;
    for (const auto& [metric, value] : r.metrics) {
      if (!is_task_score(metric)) continue;
      auto& runs = scores[{config_key(r), metric}];
      const int epoch = r.epoch.value_or(0);
      const auto [at, added] = runs.try_emplace(run_of(r), epoch, value);
      if (!added && epoch >= at->second.first) at->second = {epoch, value};
    }
  }
  std::vector<TaskScoreRow> rows;
  for (const auto& [id, runs] : scores) {
    std::vector<double> values;
    for (const auto& entry : runs) values.push_back(entry.second.second);
    TaskScoreRow row{id.first, id.second, values.size(), mean(values), stddev(values), std::nullopt};
    if (row.stddev && values.size() >= 2) {
      const double n = static_cast<double>(values.size());
      const double t = boost::math::quantile(boost::math::students_t(n - 1), 0.5 + level / 2);
      const double half = t * *row.stddev / std::sqrt(n);
      row.ci = ConfidenceInterval{row.mean - half, row.mean + half, level};
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace jetchar::analysis
