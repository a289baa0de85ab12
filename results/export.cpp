#include "results/export.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "results/setting_values.h"

namespace jetchar::results {
namespace {

using Cell = std::variant<std::monostate, std::string, double, std::int64_t>;
using Row = std::vector<std::pair<const char*, Cell>>;

template <typename T>
Cell optional_cell(bool present, T value) {
  if (!present) return std::monostate{};
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<double>(value);
  } else {
    return static_cast<std::int64_t>(value);
  }
}

// "lenet5/fashion-mnist": the model and the data set kind identify a workload.
std::string workload_name(const proto::ExperimentSpec& spec) {
  const std::string& dataset = spec.workload().dataset();
  const std::string kind = dataset.substr(0, dataset.find(':'));
  return kind.empty() ? spec.workload().model() : spec.workload().model() + "/" + kind;
}

Row run_columns(const proto::RunResult& r) {
  const auto& spec = r.resolved().has_workload() ? r.resolved() : r.requested();
  const auto& d = spec.device();
  return {
      {"sweep", r.sweep()},
      {"run_id", r.run_id()},
      {"repetition", static_cast<std::int64_t>(r.repetition())},
      {"status", proto::RunStatus_Name(r.status())},
      {"reason", r.reason()},
      {"workload", workload_name(spec)},
      {"model", spec.workload().model()},
      {"dataset", spec.workload().dataset()},
      {"task", proto::Task_Name(spec.workload().task())},
      {"mode", r.context().power_mode()},
      {"cpu_cores", optional_cell(d.has_cpu_cores(), d.cpu_cores())},
      {"cpu_freq_mhz", optional_cell(d.has_cpu_freq_mhz(), d.cpu_freq_mhz())},
      {"gpu_freq_mhz", optional_cell(d.has_gpu_freq_mhz(), d.gpu_freq_mhz())},
      {"emc_freq_mhz", optional_cell(d.has_emc_freq_mhz(), d.emc_freq_mhz())},
      {"batch", static_cast<std::int64_t>(spec.workload().batch_size())},
      {"accumulate", static_cast<std::int64_t>(std::max<std::uint32_t>(1, spec.workload().accumulate()))},
      {"workers", static_cast<std::int64_t>(spec.loader().workers())},
      {"precision", proto::Precision_Name(spec.workload().precision())},
      {"cache", proto::CachePolicy_Name(spec.cache())},
      {"medium", r.context().dataset_medium()},
      {"device", r.context().board_model()},
      {"board_kind", r.context().board_kind()},
      {"simulated", std::string(r.context().simulated() ? "true" : "false")},
      {"energy_source", r.context().energy_source()},
      {"async", std::string(r.async() ? "true" : "false")},
      {"baseload_power_w", optional_cell(r.has_baseload() && r.baseload().duration_s() > 0, r.baseload().power_w())},
      {"adaptive_minibatches", optional_cell(r.adaptive_minibatches() > 0, r.adaptive_minibatches())},
      {"adaptive_basis", r.adaptive().basis()},
      {"gpio_marker", r.context().gpio_marker()},
  };
}

Row epoch_columns(const proto::EpochResult* e) {
  if (e == nullptr) {
    return {{"epoch", {}},
            {"epoch_start_s", {}},
            {"e2e_s", {}},
            {"stall_s", {}},
            {"compute_s", {}},
            {"samples", {}},
            {"energy_j", {}},
            {"incremental_energy_j", {}},
            {"energy_per_sample_j", {}},
            {"avg_power_w", {}},
            {"loss", {}},
            {"accuracy", {}},
            {"residency_before_ratio", {}},
            {"residency_after_ratio", {}},
            {"read_bytes", {}},
            {"meter", {}},
            {"meter_energy_j", {}},
            {"meter_avg_power_w", {}},
            {"meter_gap_s", {}},
            {"phase", {}}};
  }
  // The first configured meter (the store's epoch_meters table has every meter).
  const proto::MeterEnergy* m = e->meters().empty() ? nullptr : &e->meters(0);
  return {
      {"epoch", static_cast<std::int64_t>(e->epoch())},
      {"epoch_start_s", optional_cell(e->has_start_s(), e->start_s())},  // after the run's start
      {"e2e_s", e->e2e_s()},
      {"stall_s", e->stall_s()},
      {"compute_s", e->compute_s()},
      {"samples", static_cast<std::int64_t>(e->samples())},
      {"energy_j", optional_cell(e->has_energy_j(), e->energy_j())},
      {"incremental_energy_j", optional_cell(e->has_incremental_energy_j(), e->incremental_energy_j())},
      {"energy_per_sample_j", optional_cell(e->has_energy_per_sample_j(), e->energy_per_sample_j())},
      {"avg_power_w", optional_cell(e->has_average_power_w(), e->average_power_w())},
      {"loss", optional_cell(e->has_loss(), e->loss())},
      {"accuracy", optional_cell(e->has_accuracy(), e->accuracy())},
      {"residency_before_ratio", optional_cell(e->has_residency_before(), e->residency_before())},
      {"residency_after_ratio", optional_cell(e->has_residency_after(), e->residency_after())},
      {"read_bytes", optional_cell(e->has_read_bytes(), e->read_bytes())},
      {"meter", m ? Cell(m->meter()) : Cell()},
      {"meter_energy_j", optional_cell(m && m->has_energy_j(), m ? m->energy_j() : 0.0)},
      {"meter_avg_power_w", optional_cell(m && m->has_average_power_w(), m ? m->average_power_w() : 0.0)},
      {"meter_gap_s", optional_cell(m != nullptr, m ? m->gap_s() : 0.0)},
      {"phase", optional_cell(e->phase() > 0, static_cast<std::int64_t>(e->phase()))},  // a phased pretraining run's
  };
}

Row latency_columns(const proto::RunResult& r) {
  const bool has = r.has_latency() && r.latency().batches() > 0;
  const auto& l = r.latency();
  return {
      {"latency_avg_ms", optional_cell(has, l.avg_ms())},
      {"latency_p50_ms", optional_cell(has, l.p50_ms())},
      {"latency_p90_ms", optional_cell(has, l.p90_ms())},
      {"latency_p95_ms", optional_cell(has, l.p95_ms())},
      {"latency_p99_ms", optional_cell(has, l.p99_ms())},
      {"latency_max_ms", optional_cell(has, l.max_ms())},
      {"throughput_samples_per_s", optional_cell(has, l.throughput_samples_per_s())},
      {"peak_rss_bytes", optional_cell(r.memory().has_peak_rss_bytes(), r.memory().peak_rss_bytes())},
  };
}

// Task metrics on the validation split (per epoch) and the run's time and energy to target,
// after the older columns so that their positions stay as they were. Scores are fractions
// (_ratio, as analysis/record_fields.cpp reads unit suffixes); eval_loss and target_epoch are
// informational there.
Row metric_columns(const proto::RunResult& r, const proto::EpochResult* e) {
  const bool has_target = r.has_target();
  const auto& t = r.target();
  auto epoch_cell = [&](bool (proto::EpochResult::*has)() const, double (proto::EpochResult::*get)() const) {
    return e != nullptr ? optional_cell((e->*has)(), (e->*get)()) : Cell();
  };
  using E = proto::EpochResult;
  return {
      {"eval_loss", epoch_cell(&E::has_eval_loss, &E::eval_loss)},
      {"eval_accuracy_ratio", epoch_cell(&E::has_eval_accuracy, &E::eval_accuracy)},
      {"eval_entity_precision_ratio", epoch_cell(&E::has_eval_entity_precision, &E::eval_entity_precision)},
      {"eval_entity_recall_ratio", epoch_cell(&E::has_eval_entity_recall, &E::eval_entity_recall)},
      {"eval_entity_f1_ratio", epoch_cell(&E::has_eval_entity_f1, &E::eval_entity_f1)},
      {"eval_exact_match_ratio", epoch_cell(&E::has_eval_exact_match, &E::eval_exact_match)},
      {"eval_squad_f1_ratio", epoch_cell(&E::has_eval_squad_f1, &E::eval_squad_f1)},
      {"target_f1_ratio", optional_cell(has_target, t.target_f1())},
      {"target_epoch", optional_cell(has_target && t.has_epoch(), t.epoch())},
      {"time_to_target_s", optional_cell(has_target && t.has_time_s(), t.time_s())},
      {"energy_to_target_j", optional_cell(has_target && t.has_energy_j(), t.energy_j())},
      {"wall_to_target_s", optional_cell(has_target && t.has_wall_s(), t.wall_s())},
  };
}

// An inference run's energy per query and per sample over its timed queries (LatencySummary),
// after the task metrics for the same reason.
Row query_energy_columns(const proto::RunResult& r) {
  const auto& l = r.latency();
  return {
      {"energy_per_query_j", optional_cell(l.has_energy_per_query_j(), l.energy_per_query_j())},
      {"energy_per_query_sample_j", optional_cell(l.has_energy_per_sample_j(), l.energy_per_sample_j())},
  };
}

// Every setting that tells runs apart, as the store's run_settings table holds it: a column the
// row has already (batch, workers, precision, ...) takes the setting's text in place, the others
// follow the older columns. The analysis key is built from these, whichever the reader.
void put_setting_columns(const proto::RunResult& r, Row& row) {
  for (auto& setting : setting_values(r)) {
    const std::string_view column = setting.first;  // a named copy: clang 14 cannot capture a binding
    Cell cell = setting.second.empty() ? Cell() : Cell(std::move(setting.second));
    const auto at = std::find_if(row.begin(), row.end(), [column](const auto& c) { return column == c.first; });
    if (at != row.end()) {
      at->second = std::move(cell);
    } else {
      row.emplace_back(column.data(), std::move(cell));  // a string literal of setting_columns.h
    }
  }
}

// A data-parallel epoch's communication as the recording rank saw it (the figures analysis reads
// from a store's rank_epochs), and which rank was slowest over the run or ended it. After the
// setting columns, so that every older column keeps its position; empty for one process.
Row communication_columns(const proto::RunResult& r, const proto::EpochResult* e) {
  const auto& world = r.distributed();
  const proto::RankEpoch* own = nullptr;
  if (r.has_distributed() && e != nullptr) {
    for (const auto& rank : world.ranks()) {
      if (rank.rank() == world.rank() && rank.epoch() == e->epoch()) own = &rank;
    }
  }
  return {
      {"allreduce_s", optional_cell(own != nullptr, own ? own->allreduce_s() : 0.0)},
      {"exposed_communication_s", optional_cell(own != nullptr, own ? own->exposed_communication_s() : 0.0)},
      {"allreduce_bytes", optional_cell(own != nullptr, own ? own->allreduce_bytes() : 0)},
      {"slowest_rank", optional_cell(world.has_slowest_rank(), world.slowest_rank())},
      {"failed_rank", optional_cell(world.has_failed_rank(), world.failed_rank())},
  };
}

// One row per rank and epoch of a data-parallel run, keyed as the run's epoch rows are.
Row rank_columns(const proto::RunResult& r, const proto::RankEpoch& rank) {
  return {
      {"sweep", r.sweep()},
      {"run_id", r.run_id()},
      {"repetition", static_cast<std::int64_t>(r.repetition())},
      {"device", r.context().board_model()},
      {"epoch", static_cast<std::int64_t>(rank.epoch())},
      {"rank", static_cast<std::int64_t>(rank.rank())},
      {"world_size", static_cast<std::int64_t>(r.distributed().world_size())},
      {"recording_rank", std::string(rank.rank() == r.distributed().rank() ? "true" : "false")},
      {"stall_s", rank.stall_s()},
      {"compute_s", rank.compute_s()},
      {"e2e_s", rank.e2e_s()},
      {"samples", static_cast<std::int64_t>(rank.samples())},
      {"allreduce_s", rank.allreduce_s()},
      {"exposed_communication_s", rank.exposed_communication_s()},
      {"allreduce_bytes", static_cast<std::int64_t>(rank.allreduce_bytes())},
  };
}

// A measured figure as exported, CSV and JSON alike: 10 significant digits. That keeps a time in
// seconds to the nanosecond below 10 s (to the microsecond below 2.7 h), an energy, a power or a
// clock far beyond what any sensor resolves, and drops the noise of binary arithmetic from the
// figures' last digits (8.566143999999996 W reads 8.566144).
constexpr int kExportedDigits = 10;

std::string number_text(double value) { return fmt::format("{:.{}g}", value, kExportedDigits); }

std::string csv_text(const Cell& cell) {
  if (std::holds_alternative<std::monostate>(cell)) return {};
  if (const auto* d = std::get_if<double>(&cell)) return number_text(*d);
  if (const auto* i = std::get_if<std::int64_t>(&cell)) return std::to_string(*i);
  const auto& s = std::get<std::string>(cell);
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

nlohmann::json json_value(const Cell& cell) {
  if (std::holds_alternative<std::monostate>(cell)) return nullptr;
  // The double nearest the exported digits, which JSON writes in its shortest form ("8.566144").
  if (const auto* d = std::get_if<double>(&cell)) {
    const double rounded = std::strtod(number_text(*d).c_str(), nullptr);
    return std::isfinite(rounded) ? rounded : *d;
  }
  if (const auto* i = std::get_if<std::int64_t>(&cell)) return *i;
  return std::get<std::string>(cell);
}

// Writes one row: the header first when it is the first (CSV).
class RowWriter {
 public:
  RowWriter(ExportFormat format, std::ostream& out) : format_(format), out_(out) {}

  void write(const Row& row) {
    if (format_ == ExportFormat::kCsv) {
      if (rows_ == 0) {
        for (std::size_t i = 0; i < row.size(); ++i) out_ << (i ? "," : "") << row[i].first;
        out_ << '\n';
      }
      for (std::size_t i = 0; i < row.size(); ++i) out_ << (i ? "," : "") << csv_text(row[i].second);
      out_ << '\n';
    } else {
      nlohmann::ordered_json object;
      for (const auto& [name, cell] : row) object[name] = json_value(cell);
      out_ << object.dump() << '\n';
    }
    ++rows_;
  }
  std::size_t rows() const { return rows_; }

 private:
  ExportFormat format_;
  std::ostream& out_;
  std::size_t rows_ = 0;
};

}  // namespace

std::size_t export_results(const std::vector<proto::RunResult>& results, ExportFormat format, std::ostream& out) {
  RowWriter writer(format, out);
  auto write = [&](const proto::RunResult& run, const proto::EpochResult* epoch) {
    Row row = run_columns(run);
    for (auto& cell : epoch_columns(epoch)) row.push_back(std::move(cell));
    for (auto& cell : latency_columns(run)) row.push_back(std::move(cell));
    for (auto& cell : metric_columns(run, epoch)) row.push_back(std::move(cell));
    for (auto& cell : query_energy_columns(run)) row.push_back(std::move(cell));
    put_setting_columns(run, row);
    for (auto& cell : communication_columns(run, epoch)) row.push_back(std::move(cell));
    writer.write(row);
  };
  for (const auto& run : results) {
    if (run.epochs().empty()) {
      write(run, nullptr);
    } else {
      for (const auto& epoch : run.epochs()) write(run, &epoch);
    }
  }
  return writer.rows();
}

std::size_t export_rank_epochs(const std::vector<proto::RunResult>& results, ExportFormat format, std::ostream& out) {
  RowWriter writer(format, out);
  for (const auto& run : results) {
    for (const auto& rank : run.distributed().ranks()) writer.write(rank_columns(run, rank));
  }
  return writer.rows();
}

}  // namespace jetchar::results
