#include "sweeps/spec_io.h"

#include <fmt/format.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "sweeps/spec_paths.h"
#include "sysfs/errno_name.h"
#include "sysfs/whole_file.h"

namespace jetchar::sweeps {
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

// The field protobuf complains about. An unknown field or enum value names it in the message
// ("Message type "x.WorkloadSpec" has no field named "batch_sise"."); a value of the wrong kind
// ("Expected integer, got: "big"") quotes the value, and the field is the name before the ':' that
// precedes the error's position (1-based line and column) in the text. Other errors name none.
std::string field_of_error(const std::string& message, std::string_view text, int line, int column) {
  if (message.find("has no field named") != std::string::npos || message.find("for field \"") != std::string::npos) {
    const auto close = message.rfind('"');
    if (close == std::string::npos || close == 0) return {};
    const auto open = message.rfind('"', close - 1);
    return open == std::string::npos ? std::string{} : message.substr(open + 1, close - open - 1);
  }
  const bool bad_value = message.starts_with("Expected integer") || message.starts_with("Expected double") ||
                         message.starts_with("Expected string") || message.starts_with("Integer out of range") ||
                         message.starts_with("Invalid value for boolean");
  if (!bad_value || line <= 0) return {};
  std::size_t at = 0;
  for (int l = 1; l < line && at != std::string_view::npos; ++l) {
    at = text.find('\n', at);
    if (at != std::string_view::npos) ++at;
  }
  if (at == std::string_view::npos) return {};
  const std::size_t end = std::min(text.size(), at + static_cast<std::size_t>(std::max(column - 1, 0)));
  const std::size_t colon = text.rfind(':', end == 0 ? 0 : end - 1);
  if (colon == std::string_view::npos || colon == 0) return {};
  std::size_t name_end = colon;
  while (name_end > 0 && (text[name_end - 1] == ' ' || text[name_end - 1] == '\t')) --name_end;
  std::size_t name_begin = name_end;
  while (name_begin > 0 &&
         (std::isalnum(static_cast<unsigned char>(text[name_begin - 1])) || text[name_begin - 1] == '_')) {
    --name_begin;
  }
  return std::string(text.substr(name_begin, name_end - name_begin));
}

// Fields whose 0 protobuf cannot tell from "not given", and whose unset value is not 0: a 0 in a
// spec would silently become the default (`epochs: 0` ran one epoch), so it is refused.
struct ZeroMeansUnset {
  std::string_view path;   ///< in ExperimentSpec
  std::string_view unset;  ///< what leaving the field out means
  std::string_view valid;
};
constexpr ZeroMeansUnset kZeroMeansUnset[] = {
    {"workload.accumulate", "1, no accumulation", "1 to 4096"},
    {"workload.epochs", "1 epoch", "1 to 10000"},
    {"workload.max_minibatches", "the whole epoch", "1 or more"},
    {"workload.sequence_length", "the model's default", "1 or more"},
    {"workload.inference.classes", "the model's default", "1 to 1000000"},
    {"workload.distributed.nproc_per_node", "1 rank", "1 to 256"},
    {"workload.distributed.nnodes", "1 machine", "1 to 1024"},
    {"workload.distributed.timeout_s", "300 s", "more than 0 up to 86400"},
    {"loader.prefetch", "2 batches per worker", "1 or more"},
    {"measurement.sample_rate_hz", "100 Hz", "1 to 1000"},
    {"cooldown.timeout_s", "600 s", "more than 0"},
    {"adaptive.warmup_minibatches", "10 minibatches", "1 or more"},
    {"adaptive.relative_half_width", "0.02", "0.000001 to 1"},
    {"adaptive.min_minibatches", "30 minibatches", "1 or more"},
    {"repetitions", "1 repetition", "1 to 1000"},
};

std::string zero_problem(const ZeroMeansUnset& entry) {
  return fmt::format("0 cannot be told from leaving the field out ({}); valid: {}", entry.unset, entry.valid);
}

bool is_zero(const pb::Message& message, const pb::FieldDescriptor* field) {
  const auto* reflection = message.GetReflection();
  switch (field->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_UINT32: return reflection->GetUInt32(message, field) == 0;
    case pb::FieldDescriptor::CPPTYPE_UINT64: return reflection->GetUInt64(message, field) == 0;
    case pb::FieldDescriptor::CPPTYPE_INT32: return reflection->GetInt32(message, field) == 0;
    case pb::FieldDescriptor::CPPTYPE_INT64: return reflection->GetInt64(message, field) == 0;
    case pb::FieldDescriptor::CPPTYPE_DOUBLE: return reflection->GetDouble(message, field) == 0;
    case pb::FieldDescriptor::CPPTYPE_FLOAT: return reflection->GetFloat(message, field) == 0;
    default: return false;
  }
}

// Refuses a 0 written out in the text (the parse-info tree knows what was written) for a field of
// kZeroMeansUnset. `prefix` names where `spec` sits in the file ("base.", "runs.").
void reject_written_zeros(const proto::ExperimentSpec& spec, const pb::TextFormat::ParseInfoTree* tree,
                          std::string_view source, const std::string& prefix) {
  for (const auto& entry : kZeroMeansUnset) {
    const pb::Message* message = &spec;
    const pb::TextFormat::ParseInfoTree* at = tree;
    std::size_t start = 0;
    for (;;) {
      const std::size_t dot = entry.path.find('.', start);
      const std::string name(
          entry.path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
      const pb::FieldDescriptor* field = message->GetDescriptor()->FindFieldByName(name);
      if (field == nullptr || at == nullptr) break;
      if (dot == std::string_view::npos) {
        const auto location = at->GetLocation(field, -1);
        if (location.line >= 0 && is_zero(*message, field)) {
          throw SpecError(std::string(source), location.line + 1, location.column + 1, prefix + std::string(entry.path),
                          zero_problem(entry));
        }
        break;
      }
      at = at->GetTreeForNested(field, -1);
      message = &message->GetReflection()->GetMessage(*message, field);
      start = dot + 1;
    }
  }
}

// "cpu", "cuda" or "cuda:N" (a GPU's index), as LibTorch names devices.
bool is_device_name(std::string_view device) {
  if (device == "cpu" || device == "cuda") return true;
  constexpr std::string_view kCuda = "cuda:";
  if (!device.starts_with(kCuda) || device.size() == kCuda.size() || device.size() > kCuda.size() + 3) return false;
  return std::all_of(device.begin() + kCuda.size(), device.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Checks performed after parsing, with the parse-info tree giving each field's position.
class Validator {
 public:
  Validator(std::string source, std::string where, const pb::TextFormat::ParseInfoTree* tree,
            WorldPort port = WorldPort::kInSpec)
      : source_(std::move(source)), where_(std::move(where)), tree_(tree), port_(port) {}

  void experiment(const proto::ExperimentSpec& spec) {
    const auto* workload_tree = child("workload", spec);
    Validator workload(source_, where_, workload_tree);
    const auto& w = spec.workload();
    if (w.model().empty()) fail_at(nullptr, "workload.model", "is required (see `jetchar models`)");
    if (w.dataset().empty() && w.task() != proto::INFER) {
      fail_at(nullptr, "workload.dataset",
              "is required for training (KIND:PATH, e.g. fashion-mnist:/usr/share/datasets/fashion-mnist)");
    }
    workload.require_range(w, "batch_size", w.batch_size(), 1, 65536, "workload.");
    if (w.accumulate() != 0) workload.require_range(w, "accumulate", w.accumulate(), 1, 4096, "workload.");
    if (w.epochs() != 0) workload.require_range(w, "epochs", w.epochs(), 1, 10000, "workload.");
    // NaN fails every comparison: only a number in [0, 1] passes.
    if (w.has_weight_decay() && !(w.weight_decay() >= 0 && w.weight_decay() <= 1)) {
      workload.fail_field(
          w, "weight_decay", "workload.",
          fmt::format("{} is out of range; valid: 0 to 1 (AdamW's decoupled decay, SGD's L2 term)", w.weight_decay()));
    }
    if (!w.device().empty() && !is_device_name(w.device())) {
      workload.fail_field(w, "device", "workload.",
                          fmt::format("'{}' is not a device; valid: cpu, cuda, cuda:N", w.device()));
    }
    if (w.threads() != 0) workload.require_range(w, "threads", w.threads(), 1, 1024, "workload.");
    if (w.inference().classes() != 0) {
      Validator inference(source_, where_, workload.child("inference", w));
      inference.require_range(w.inference(), "classes", w.inference().classes(), 1, 1000000, "workload.inference.");
    }
    if (w.has_distributed()) distributed(w, workload);
    // MLPerf LoadGen's scenarios (experiment_spec.proto): a single-stream query is one sample; a
    // server's batch_size is the largest batch it forms from queued queries.
    if (w.inference().scenario() == proto::SINGLE_STREAM && w.batch_size() != 1) {
      workload.fail_field(w, "batch_size", "workload.",
                          fmt::format("{} is not valid with workload.inference.scenario SINGLE_STREAM (queries of one "
                                      "sample); valid: 1 (OFFLINE or SERVER take larger batches)",
                                      w.batch_size()));
    }
    if (const auto& i = w.inference();
        i.has_latency_bound_ms() && !(i.latency_bound_ms() > 0 && i.latency_bound_ms() <= 3600000)) {
      Validator inference(source_, where_, workload.child("inference", w));
      inference.fail_field(i, "latency_bound_ms", "workload.inference.",
                           fmt::format("{} ms is out of range; valid: more than 0 up to 3600000 ms (a p99 bound of "
                                       "the SERVER scenario)",
                                       i.latency_bound_ms()));
    }

    Validator measurement(source_, where_, child("measurement", spec));
    const auto& m = spec.measurement();
    if (m.sample_rate_hz() != 0)
      measurement.require_range(m, "sample_rate_hz", m.sample_rate_hz(), 1, 1000, "measurement.");
    if (m.baseload_s() < 0) measurement.fail_field(m, "baseload_s", "measurement.", "must be ≥ 0 s");

    Validator device(source_, where_, child("device", spec));
    const auto& d = spec.device();
    if (d.has_preset_mode() &&
        (d.has_cpu_cores() || d.has_cpu_freq_mhz() || d.has_gpu_freq_mhz() || d.has_emc_freq_mhz())) {
      device.fail_field(d, "preset_mode", "device.",
                        "a preset mode cannot be combined with custom cores or frequencies");
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
    if (a.relative_half_width() != 0)
      adaptive.require_range(a, "relative_half_width", a.relative_half_width(), 1e-6, 1, "adaptive.");
    if (spec.repetitions() != 0) require_range(spec, "repetitions", spec.repetitions(), 1, 1000, "");
  }

  // workload.distributed: torchrun's ranges; a world of several machines needs the port its other
  // machines are told (unless the Slurm job of a fleet's sweep gives it), and its backend must be
  // one LibTorch has.
  void distributed(const proto::WorkloadSpec& w, Validator& workload) {
    Validator distributed(source_, where_, workload.child("distributed", w));
    const auto& d = w.distributed();
    const std::string kPrefix = "workload.distributed.";
    if (d.nproc_per_node() != 0) distributed.require_range(d, "nproc_per_node", d.nproc_per_node(), 1, 256, kPrefix);
    if (d.nnodes() != 0) distributed.require_range(d, "nnodes", d.nnodes(), 1, 1024, kPrefix);
    const std::uint32_t nodes = std::max<std::uint32_t>(1, d.nnodes());
    if (d.node_rank() >= nodes) {
      distributed.fail_field(d, "node_rank", kPrefix,
                             fmt::format("{} is out of range; valid: 0 to {} (nnodes - 1)", d.node_rank(), nodes - 1));
    }
    if (d.master_port() > 65535) distributed.require_range(d, "master_port", d.master_port(), 1, 65535, kPrefix);
    if (nodes > 1 && d.master_port() == 0 && port_ == WorldPort::kInSpec) {
      distributed.fail_field(d, "master_port", kPrefix,
                             "is required with nnodes > 1: every machine must be told where node 0 waits (1 to 65535)");
    }
    if (!d.backend().empty() && d.backend() != "gloo" && d.backend() != "nccl") {
      distributed.fail_field(d, "backend", kPrefix,
                             fmt::format("'{}' is not a backend; valid: gloo, nccl", d.backend()));
    }
    if (d.timeout_s() != 0 && !(d.timeout_s() > 0 && d.timeout_s() <= 86400)) {
      distributed.fail_field(d, "timeout_s", kPrefix,
                             fmt::format("{} s is out of range; valid: more than 0 up to 86400 s", d.timeout_s()));
    }
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

  void fail_field(const pb::Message& message, const char* name, const std::string& prefix,
                  const std::string& why) const {
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
  WorldPort port_;
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
    throw SpecError(std::string(source), errors.line(), errors.column(),
                    field_of_error(message, text, errors.line(), errors.column()), message);
  }
  return spec;
}

// A spec is text a person writes: 16 MiB is far beyond any, and a device that never ends
// (/dev/zero) is refused at that size instead of filling memory.
constexpr std::size_t kMaxSpecBytes = std::size_t{16} << 20;

std::string read_file(const std::filesystem::path& file) {
  std::string text;
  try {
    text = sysfs::read_file_at_most(file, kMaxSpecBytes, "a spec");
  } catch (const sysfs::IoError& e) {
    throw SpecError(file.string(), 0, 0, "", "cannot read the spec file: " + sysfs::errno_text(e.error_number()));
  } catch (const sysfs::FormatError&) {
    throw SpecError(file.string(), 0, 0, "",
                    fmt::format("the file is larger than {} MiB: not a spec", kMaxSpecBytes >> 20));
  }
  // Editors on some systems start UTF-8 text with a byte-order mark, which protobuf's parser
  // refuses as "non ascii codepoint 239": it is no part of the spec.
  if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
  return text;
}

// A sweep's name becomes a folder name (results/<name>, a fleet's sweep name): one plain name.
void check_sweep_name(const std::string& name, std::string_view source, int line, int column) {
  constexpr std::size_t kMaxName = 100;
  std::string problem;
  if (name.size() > kMaxName) {
    problem = fmt::format("is {} bytes long; at most {}", name.size(), kMaxName);
  } else if (name == "." || name == "..") {
    problem = "is a relative folder";
  } else if (name.find('/') != std::string::npos || name.find('\\') != std::string::npos) {
    problem = "holds a path separator";
  } else if (std::any_of(name.begin(), name.end(),
                         [](char c) { return std::iscntrl(static_cast<unsigned char>(c)); })) {
    problem = "holds a control character";
  }
  if (problem.empty()) return;
  std::string shown = name.substr(0, 60);
  if (name.size() > shown.size()) shown.append("...");
  for (char& c : shown) c = std::iscntrl(static_cast<unsigned char>(c)) ? '?' : c;
  throw SpecError(std::string(source), line, column, "name",
                  fmt::format("'{}' {}: a sweep's name becomes a folder name (letters, digits, '-', '_', '.'; no '/', "
                              "no '..')",
                              shown, problem));
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
  reject_written_zeros(spec, &tree, source, "");
  Validator(std::string(source), "", &tree).experiment(spec);
  return spec;
}

proto::SweepSpec parse_sweep_spec(std::string_view text, std::string_view source) {
  pb::TextFormat::ParseInfoTree tree;
  auto sweep = parse_text<proto::SweepSpec>(text, source, &tree);
  const auto* descriptor = sweep.GetDescriptor();
  const auto name_at = tree.GetLocation(descriptor->FindFieldByName("name"), -1);
  check_sweep_name(sweep.name(), source, name_at.line + 1, name_at.column + 1);
  reject_written_zeros(sweep.base(), tree.GetTreeForNested(descriptor->FindFieldByName("base"), -1), source, "base.");
  for (int i = 0; i < sweep.runs_size(); ++i) {
    reject_written_zeros(sweep.runs(i), tree.GetTreeForNested(descriptor->FindFieldByName("runs"), i), source, "runs.");
  }
  for (int i = 0; i < sweep.axes_size(); ++i) {
    const auto& axis = sweep.axes(i);
    const auto location = tree.GetLocation(descriptor->FindFieldByName("axes"), i);
    if (axis.values().empty() && axis.range().step() <= 0) {
      throw SpecError(std::string(source), location.line + 1, location.column + 1, "axes.range.step",
                      fmt::format("axis '{}' needs values or a range with step > 0", axis.field()));
    }
    if (axis.values().empty() && axis.range().to() < axis.range().from()) {
      throw SpecError(
          std::string(source), location.line + 1, location.column + 1, "axes.range",
          fmt::format("axis '{}': range to {} is below from {}", axis.field(), axis.range().to(), axis.range().from()));
    }
  }
  return sweep;
}

proto::SweepSpec load_sweep_spec(const std::filesystem::path& file) {
  auto sweep = parse_sweep_spec(read_file(file), file.string());
  resolve_spec_paths(sweep, spec_folder(file));
  return sweep;
}

proto::ExperimentSpec load_experiment_spec(const std::filesystem::path& file) {
  auto spec = parse_experiment_spec(read_file(file), file.string());
  resolve_spec_paths(spec, spec_folder(file));
  return spec;
}

std::string resolved_sweep_spec_text(const std::filesystem::path& file) {
  const std::string text = read_file(file);
  auto sweep = parse_sweep_spec(text, file.string());
  PathChanges changes;
  resolve_spec_paths(sweep, spec_folder(file), &changes);
  return rewrite_spec_paths(text, changes);
}

proto::NodeConfig load_node_config(const std::filesystem::path& file) {
  return parse_text<proto::NodeConfig>(read_file(file), file.string(), nullptr);
}

std::optional<std::string> zero_means_unset(std::string_view path) {
  for (const auto& entry : kZeroMeansUnset) {
    if (entry.path == path) return zero_problem(entry);
  }
  return std::nullopt;
}

void validate_experiment(const proto::ExperimentSpec& spec, std::string_view source, std::string_view where,
                         WorldPort port) {
  Validator(std::string(source), std::string(where), nullptr, port).experiment(spec);
}

}  // namespace jetchar::sweeps
