// Expanding a SweepSpec into the ordered list of runs it asks for: axes as a cartesian product
// over the base (or over each explicit run), repetitions as separate runs, ordered so that runs
// sharing a power mode are adjacent (each mode switch costs a settle and a baseload).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "proto/experiment_spec.pb.h"
#include "proto/sweep_spec.pb.h"

namespace jetchar::sweeps {

struct PlannedRun {
  std::string run_id;                                            ///< "0007-r1": experiment 7, repetition 1
  std::size_t experiment_index = 0;                              ///< position before repetitions, from 0
  std::uint32_t repetition = 0;                                  ///< from 0
  proto::ExperimentSpec spec;                                    ///< fully merged; repetitions field = 1
  std::vector<std::pair<std::string, std::string>> axis_values;  ///< the values this run took
  std::string mode_key;                                          ///< identical for runs in the same power mode
};

struct SweepPlan {
  std::vector<PlannedRun> runs;
  std::size_t mode_switches = 0;  ///< number of distinct consecutive modes
};

/// The most runs a plan expands to unless the spec's max_runs says otherwise.
inline constexpr std::uint32_t kDefaultMaxRuns = 10000;

/// Expands, validates every run (SpecError naming the run and its axis values), and orders.
/// `source` names the sweep file in errors. Refused before anything is expanded: a field on two
/// axes, a value listed twice on an axis, and a plan of more runs than max_runs.
SweepPlan plan_sweep(const proto::SweepSpec& sweep, const std::string& source);

/// The plan of the experiments a command builds from its options (`train` one, `infer` one per
/// batch size): runs "0000-r0", "0001-r0", ... in the order given, each validated as a sweep's
/// runs are (SpecError naming the field, with `source` for the file and, for more than one, the
/// run), so that they run on the same route.
SweepPlan plan_runs(const std::vector<proto::ExperimentSpec>& specs, const std::string& source);

/// Sets the field at a dotted path ("workload.batch_size", "device.gpu_freq_mhz", "cache") from
/// its text-format value. Throws SpecError naming the path, the value and the valid choices.
void set_field(proto::ExperimentSpec& spec, const std::string& path, const std::string& value,
               const std::string& source);

/// Values of an axis: its explicit values, or the range expanded (from, from+step, ... ≤ to).
/// A range of more than a million values throws std::invalid_argument (checked before expanding).
std::vector<std::string> axis_values(const proto::Axis& axis);
/// How many values axis_values() gives, counted without expanding a range.
double axis_value_count(const proto::Axis& axis);

/// A short human-readable description of a run's power mode ("preset 2", "4 cores 1420.8/1109.25/1600 MHz").
std::string describe_mode(const proto::DeviceSpec& device);

}  // namespace jetchar::sweeps
