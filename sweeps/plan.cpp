#include "sweeps/plan.h"

#include <fmt/format.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <stdexcept>

#include "sweeps/spec_io.h"

namespace jetchar::sweeps {
namespace {

namespace pb = google::protobuf;

std::string field_names(const pb::Descriptor* descriptor) {
  std::string names;
  for (int i = 0; i < descriptor->field_count(); ++i) {
    if (!names.empty()) names += ", ";
    names += descriptor->field(i)->name();
  }
  return names;
}

// Shortest text that reads back as the same double ("1420.8", not "1420.8000000000002").
std::string format_number(double value) {
  for (int precision = 6; precision < 18; ++precision) {
    std::string text = fmt::format("{:.{}g}", value, precision);
    if (std::stod(text) == value) return text;
  }
  return fmt::format("{}", value);
}

}  // namespace

void set_field(proto::ExperimentSpec& spec, const std::string& path, const std::string& value,
               const std::string& source) {
  pb::Message* message = &spec;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = path.find('.', start);
    const std::string name = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    const pb::Descriptor* descriptor = message->GetDescriptor();
    const pb::FieldDescriptor* field = descriptor->FindFieldByName(name);
    if (field == nullptr || field->is_repeated()) {
      throw SpecError(source, 0, 0, path,
                      fmt::format("'{}' is not a settable field of {}; valid: {}", name, descriptor->name(),
                                  field_names(descriptor)));
    }
    if (dot == std::string::npos) {
      if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
        throw SpecError(
            source, 0, 0, path,
            fmt::format("'{}' is a message; name one of its fields: {}", name, field_names(field->message_type())));
      }
      if (!pb::TextFormat::ParseFieldValueFromString(value, field, message)) {
        std::string valid = field->type_name();
        if (field->enum_type() != nullptr) {
          valid.clear();
          for (int i = 0; i < field->enum_type()->value_count(); ++i) {
            if (!valid.empty()) valid += ", ";
            valid += field->enum_type()->value(i)->name();
          }
        }
        throw SpecError(source, 0, 0, path, fmt::format("'{}' is not a valid value; valid: {}", value, valid));
      }
      // An axis value 0 for a field whose 0 reads as "not given" would run the default instead.
      if (const auto problem = zero_means_unset(path)) {
        const auto* reflection = message->GetReflection();
        const bool zero =
            field->cpp_type() == pb::FieldDescriptor::CPPTYPE_UINT32   ? reflection->GetUInt32(*message, field) == 0
            : field->cpp_type() == pb::FieldDescriptor::CPPTYPE_DOUBLE ? reflection->GetDouble(*message, field) == 0
                                                                       : false;
        if (zero) throw SpecError(source, 0, 0, path, fmt::format("axis value '{}': {}", value, *problem));
      }
      return;
    }
    if (field->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) {
      throw SpecError(source, 0, 0, path, fmt::format("'{}' has no sub-fields", name));
    }
    message = message->GetReflection()->MutableMessage(message, field);
    start = dot + 1;
  }
}

double axis_value_count(const proto::Axis& axis) {
  if (!axis.values().empty()) return axis.values_size();
  const auto& range = axis.range();
  if (range.step() <= 0 || range.to() < range.from()) return 0;
  return std::floor((range.to() - range.from()) / range.step() + 1e-9) + 1;
}

std::vector<std::string> axis_values(const proto::Axis& axis) {
  if (!axis.values().empty()) return {axis.values().begin(), axis.values().end()};
  std::vector<std::string> values;
  const auto& range = axis.range();
  if (range.step() <= 0) return values;
  // Counted up front, so that accumulated rounding cannot add or drop the last value and an
  // endless range is refused before it is expanded.
  const double count = axis_value_count(axis);
  constexpr double kMaxAxisValues = 1e6;
  if (!(count <= kMaxAxisValues)) {
    throw std::invalid_argument(fmt::format("axis '{}': range from {} to {} step {} has {:.0f} values; at most {:.0f}",
                                            axis.field(), range.from(), range.to(), range.step(), count,
                                            kMaxAxisValues));
  }
  const auto steps = static_cast<long>(count) - 1;
  for (long i = 0; i <= steps; ++i) {
    // 12 significant digits drop the binary noise of from + i·step (0.30000000000000004).
    const double value = range.from() + static_cast<double>(i) * range.step();
    values.push_back(format_number(std::stod(fmt::format("{:.12g}", value))));
  }
  return values;
}

namespace {

// Runs with the same key share a power mode: the device settings, serialized.
std::string mode_key_of(const proto::DeviceSpec& device) {
  std::string key;
  device.SerializeToString(&key);
  return key;
}

// The same value written twice ("612" and "612.0" too): one run labelled twice.
bool same_value(const std::string& a, const std::string& b) {
  if (a == b) return true;
  char* end_a = nullptr;
  char* end_b = nullptr;
  const double x = std::strtod(a.c_str(), &end_a);
  const double y = std::strtod(b.c_str(), &end_b);
  return !a.empty() && !b.empty() && *end_a == '\0' && *end_b == '\0' && x == y;
}

// A field on two axes would take both values in turn, and the runs would be labelled with values
// they did not run at; a value twice on one axis runs the same thing twice under two ids; a plan
// larger than max_runs would be expanded in memory before anything could refuse it.
void check_axes(const proto::SweepSpec& sweep, const std::string& source, std::size_t starts) {
  std::map<std::string, std::size_t> fields;
  double runs = static_cast<double>(starts);
  for (std::size_t i = 0; i < static_cast<std::size_t>(sweep.axes_size()); ++i) {
    const auto& axis = sweep.axes(static_cast<int>(i));
    if (const auto [earlier, added] = fields.emplace(axis.field(), i); !added) {
      throw SpecError(source, 0, 0, "axes",
                      fmt::format("field '{}' is on axes {} and {}: a field takes one value per run; put all its "
                                  "values on one axis",
                                  axis.field(), earlier->second + 1, i + 1));
    }
    for (int a = 0; a < axis.values_size(); ++a) {
      for (int b = a + 1; b < axis.values_size(); ++b) {
        if (same_value(axis.values(a), axis.values(b))) {
          throw SpecError(source, 0, 0, "axes",
                          fmt::format("axis '{}' lists the value {} twice ('{}' and '{}'); list each value once",
                                      axis.field(), axis.values(a), axis.values(a), axis.values(b)));
        }
      }
    }
    runs *= axis_value_count(axis);
  }
  std::uint32_t repetitions = std::max<std::uint32_t>(1, sweep.base().repetitions());
  for (const auto& run : sweep.runs()) repetitions = std::max(repetitions, run.repetitions());
  runs *= repetitions;
  const std::uint32_t limit = sweep.has_max_runs() ? sweep.max_runs() : kDefaultMaxRuns;
  if (runs > limit) {
    throw SpecError(source, 0, 0, "max_runs",
                    fmt::format("the sweep expands to {:.0f} runs (repetitions counted), more than its limit of {}; "
                                "narrow the axes, or raise the limit with `max_runs: N` if the sweep is meant",
                                runs, limit));
  }
}

}  // namespace

std::string describe_mode(const proto::DeviceSpec& device) {
  if (device.has_preset_mode()) return fmt::format("preset {}", device.preset_mode());
  if (!device.has_cpu_cores() && !device.has_cpu_freq_mhz() && !device.has_gpu_freq_mhz() &&
      !device.has_emc_freq_mhz() && device.dvfs() == proto::SWITCH_UNSPECIFIED &&
      device.fan() == proto::FAN_UNSPECIFIED) {
    return "as found";
  }
  std::string text = device.has_cpu_cores() ? fmt::format("{} cores", device.cpu_cores()) : "cores as set";
  auto mhz = [](bool has, double value) { return has ? format_number(value) : std::string("-"); };
  text += fmt::format(" CPU/GPU/EMC {}/{}/{} MHz", mhz(device.has_cpu_freq_mhz(), device.cpu_freq_mhz()),
                      mhz(device.has_gpu_freq_mhz(), device.gpu_freq_mhz()),
                      mhz(device.has_emc_freq_mhz(), device.emc_freq_mhz()));
  if (device.dvfs() == proto::OFF) text += " DVFS off";
  if (device.fan() == proto::FAN_MAX) text += " fan max";
  return text;
}

SweepPlan plan_runs(const std::vector<proto::ExperimentSpec>& specs, const std::string& source) {
  SweepPlan plan;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    validate_experiment(specs[i], source, specs.size() > 1 ? fmt::format("run {}: ", i) : "");
    PlannedRun run;
    run.run_id = fmt::format("{:04d}-r0", i);
    run.experiment_index = i;
    run.spec = specs[i];
    run.spec.set_repetitions(1);
    run.mode_key = mode_key_of(specs[i].device());
    if (plan.runs.empty() || plan.runs.back().mode_key != run.mode_key) ++plan.mode_switches;
    plan.runs.push_back(std::move(run));
  }
  return plan;
}

SweepPlan plan_sweep(const proto::SweepSpec& sweep, const std::string& source) {
  // Starting points: the base alone, or the base merged with each explicit run.
  std::vector<proto::ExperimentSpec> starts;
  if (sweep.runs().empty()) {
    starts.push_back(sweep.base());
  } else {
    for (const auto& run : sweep.runs()) {
      proto::ExperimentSpec merged = sweep.base();
      merged.MergeFrom(run);
      starts.push_back(std::move(merged));
    }
  }

  struct Expanded {
    proto::ExperimentSpec spec;
    std::vector<std::pair<std::string, std::string>> values;
  };
  check_axes(sweep, source, starts.size());
  std::vector<Expanded> expanded;
  for (auto& start : starts) expanded.push_back({std::move(start), {}});
  for (const auto& axis : sweep.axes()) {
    const auto values = axis_values(axis);
    std::vector<Expanded> next;
    next.reserve(expanded.size() * values.size());
    for (const auto& base : expanded) {
      for (const auto& value : values) {
        Expanded run = base;
        set_field(run.spec, axis.field(), value, source);
        run.values.emplace_back(axis.field(), value);
        next.push_back(std::move(run));
      }
    }
    expanded = std::move(next);
  }

  SweepPlan plan;
  for (std::size_t i = 0; i < expanded.size(); ++i) {
    auto& run = expanded[i];
    std::string where = fmt::format("run {}", i);
    for (const auto& [field, value] : run.values) where += fmt::format(" {}={}", field, value);
    // A multi-node run's node 0 port comes from the Slurm job it is submitted as (fleet/multi_node_run.h).
    validate_experiment(run.spec, source, where + ": ", WorldPort::kFromSlurmJob);
    const std::uint32_t repetitions = std::max<std::uint32_t>(1, run.spec.repetitions());
    const std::string mode_key = mode_key_of(run.spec.device());
    for (std::uint32_t r = 0; r < repetitions; ++r) {
      PlannedRun planned;
      planned.run_id = fmt::format("{:04d}-r{}", i, r);
      planned.experiment_index = i;
      planned.repetition = r;
      planned.spec = run.spec;
      planned.spec.set_repetitions(1);
      planned.axis_values = run.values;
      planned.mode_key = mode_key;
      plan.runs.push_back(std::move(planned));
    }
  }

  // Group runs by power mode, modes in order of first appearance, runs stable within a mode.
  std::map<std::string, std::size_t> first_seen;
  for (const auto& run : plan.runs) first_seen.emplace(run.mode_key, first_seen.size());
  std::stable_sort(plan.runs.begin(), plan.runs.end(), [&](const PlannedRun& a, const PlannedRun& b) {
    return first_seen.at(a.mode_key) < first_seen.at(b.mode_key);
  });
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    if (i == 0 || plan.runs[i].mode_key != plan.runs[i - 1].mode_key) ++plan.mode_switches;
  }
  return plan;
}

}  // namespace jetchar::sweeps
