#include "experiments/spec_io.h"

#include <fmt/format.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <fstream>
#include <optional>
#include <sstream>

namespace jetchar::experiments {
namespace {

namespace pb = google::protobuf;

std::string location_text(const std::string& source, int line, int column) {
  if (line <= 0) return source;
  return fmt::format("{}:{}:{}", source, line, column);
}

// Keeps the first error protobuf's text parser reports (later ones are usually follow-ups).
class FirstError : public pb::io::ErrorCollector {
 public:
  void AddError(int line, pb::io::ColumnNumber column, const std::string& message) override {
    if (!message_) {
      line_ = line + 1;
      column_ = column + 1;
      message_ = message;
    }
  }
  void AddWarning(int, pb::io::ColumnNumber, const std::string&) override {}

  bool has_error() const { return message_.has_value(); }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& message() const { return *message_; }

 private:
  int line_ = 0;
  int column_ = 0;
  std::optional<std::string> message_;
};

// The field protobuf complains about: the last quoted name in its message
// ("Message type "x.WorkloadSpec" has no field named "batch_sise".").
std::string field_in_message(const std::string& message) {
  const auto close = message.rfind('"');
  if (close == std::string::npos || close == 0) return {};
  const auto open = message.rfind('"', close - 1);
  return open == std::string::npos ? std::string{} : message.substr(open + 1, close - open - 1);
}

// Checks performed after parsing, with the parse-info tree giving each field's position.
class Validator {
 public:
  Validator(std::string source, std::string where, const pb::TextFormat::ParseInfoTree* tree)
      : source_(std::move(source)), where_(std::move(where)), tree_(tree) {}

  void experiment(const proto::ExperimentSpec& spec) {
    const auto* workload_tree = child("workload", spec);
    Validator workload(source_, where_, workload_tree);
    const auto& w = spec.workload();
    if (w.model().empty()) fail_at(nullptr, "workload.model", "is required (see `jetchar models`)");
    if (w.dataset().empty() && w.task() != proto::INFER) {
      fail_at(nullptr, "workload.dataset", "is required for training (KIND:PATH, e.g. fashion-mnist:/usr/share/datasets/fashion-mnist)");
    }
    workload.require_range(w, "batch_size", w.batch_size(), 1, 65536, "workload.");
    if (w.accumulate() != 0) workload.require_range(w, "accumulate", w.accumulate(), 1, 4096, "workload.");
    if (w.epochs() != 0) workload.require_range(w, "epochs", w.epochs(), 1, 10000, "workload.");
    if (!w.device().empty() && w.device() != "cpu" && w.device() != "cuda") {
      workload.fail_field(w, "device", "workload.", fmt::format("'{}' is not a device; valid: cpu, cuda", w.device()));
    }

    Validator measurement(source_, where_, child("measurement", spec));
    const auto& m = spec.measurement();
    if (m.sample_rate_hz() != 0) measurement.require_range(m, "sample_rate_hz", m.sample_rate_hz(), 1, 1000, "measurement.");
    if (m.baseload_s() < 0) measurement.fail_field(m, "baseload_s", "measurement.", "must be ≥ 0 s");

    Validator device(source_, where_, child("device", spec));
    const auto& d = spec.device();
    if (d.has_preset_mode() && (d.has_cpu_cores() || d.has_cpu_freq_mhz() || d.has_gpu_freq_mhz() || d.has_emc_freq_mhz())) {
      device.fail_field(d, "preset_mode", "device.", "a preset mode cannot be combined with custom cores or frequencies");
    }
    if (d.has_cpu_cores()) device.require_range(d, "cpu_cores", d.cpu_cores(), 1, 256, "device.");
    for (const char* f : {"cpu_freq_mhz", "gpu_freq_mhz", "emc_freq_mhz"}) {
      const auto* field = d.GetDescriptor()->FindFieldByName(f);
      if (d.GetReflection()->HasField(d, field)) {
        device.require_range(d, f, d.GetReflection()->GetDouble(d, field), 1, 100000, "device.");
      }
    }

    Validator adaptive(source_, where_, child("adaptive", spec));
    const auto& a = spec.adaptive();
    if (a.relative_half_width() != 0) adaptive.require_range(a, "relative_half_width", a.relative_half_width(), 1e-6, 1, "adaptive.");
    if (spec.repetitions() != 0) require_range(spec, "repetitions", spec.repetitions(), 1, 1000, "");
  }

 private:
  const pb::TextFormat::ParseInfoTree* child(const char* name, const pb::Message& message) const {
    if (tree_ == nullptr) return nullptr;
    const auto* field = message.GetDescriptor()->FindFieldByName(name);
    return tree_->GetTreeForNested(field, -1);
  }

  template <typename T>
  void require_range(const pb::Message& message, const char* name, T value, double low, double high,
                     const std::string& prefix) const {
    if (value < low || value > high) {
      fail_field(message, name, prefix, fmt::format("{} is out of range; valid: {} to {}", value, low, high));
    }
  }

  void fail_field(const pb::Message& message, const char* name, const std::string& prefix, const std::string& why) const {
    const auto* field = message.GetDescriptor()->FindFieldByName(name);
    fail_at(field, prefix + name, why);
  }

  [[noreturn]] void fail_at(const pb::FieldDescriptor* field, const std::string& path, const std::string& why) const {
    int line = 0, column = 0;
    if (tree_ != nullptr && field != nullptr) {
      const auto location = tree_->GetLocation(field, field->is_repeated() ? 0 : -1);
      if (location.line >= 0) {
        line = location.line + 1;
        column = location.column + 1;
      }
    }
    throw SpecError(source_, line, column, path, where_ + why);
  }

  std::string source_;
  std::string where_;
  const pb::TextFormat::ParseInfoTree* tree_;
};

template <typename Spec>
Spec parse_text(std::string_view text, std::string_view source, pb::TextFormat::ParseInfoTree* tree) {
  Spec spec;
  FirstError errors;
  pb::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  parser.WriteLocationsTo(tree);
  parser.AllowUnknownField(false);
  if (!parser.ParseFromString(std::string(text), &spec) || errors.has_error()) {
    const std::string message = errors.has_error() ? errors.message() : "cannot parse";
    throw SpecError(std::string(source), errors.line(), errors.column(), field_in_message(message), message);
  }
  return spec;
}

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw SpecError(file.string(), 0, 0, "", "cannot read the spec file (does it exist?)");
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

}  // namespace

SpecError::SpecError(std::string source, int line, int column, std::string field, std::string message)
    : std::invalid_argument(fmt::format("{}: {}{}", location_text(source, line, column),
                                        field.empty() ? "" : "field " + field + ": ", message)),
      source_(std::move(source)),
      line_(line),
      column_(column),
      field_(std::move(field)) {}

proto::ExperimentSpec parse_experiment_spec(std::string_view text, std::string_view source) {
  pb::TextFormat::ParseInfoTree tree;
  auto spec = parse_text<proto::ExperimentSpec>(text, source, &tree);
  Validator(std::string(source), "", &tree).experiment(spec);
  return spec;
}

proto::SweepSpec parse_sweep_spec(std::string_view text, std::string_view source) {
  pb::TextFormat::ParseInfoTree tree;
  auto sweep = parse_text<proto::SweepSpec>(text, source, &tree);
  const auto* descriptor = sweep.GetDescriptor();
  for (int i = 0; i < sweep.axes_size(); ++i) {
    const auto& axis = sweep.axes(i);
    const auto location = tree.GetLocation(descriptor->FindFieldByName("axes"), i);
    if (axis.values().empty() && axis.range().step() <= 0) {
      throw SpecError(std::string(source), location.line + 1, location.column + 1, "axes.range.step",
                      fmt::format("axis '{}' needs values or a range with step > 0", axis.field()));
    }
    if (axis.values().empty() && axis.range().to() < axis.range().from()) {
      throw SpecError(std::string(source), location.line + 1, location.column + 1, "axes.range",
                      fmt::format("axis '{}': range to {} is below from {}", axis.field(), axis.range().to(), axis.range().from()));
    }
  }
  return sweep;
}

proto::SweepSpec load_sweep_spec(const std::filesystem::path& file) {
  return parse_sweep_spec(read_file(file), file.string());
}

proto::ExperimentSpec load_experiment_spec(const std::filesystem::path& file) {
  return parse_experiment_spec(read_file(file), file.string());
}

void validate_experiment(const proto::ExperimentSpec& spec, std::string_view source, std::string_view where) {
  Validator(std::string(source), std::string(where), nullptr).experiment(spec);
}

}  // namespace jetchar::experiments
