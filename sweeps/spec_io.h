// Reading experiment and sweep specs from Protobuf text format, with errors that point at the
// file, line, column and field, and range checks that protoc's syntax check cannot do.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "proto/experiment_spec.pb.h"
#include "proto/sweep_spec.pb.h"

namespace jetchar::sweeps {

/// A spec that cannot be used. what() reads "FILE:LINE:COLUMN: field F: message" (1-based).
class SpecError : public std::invalid_argument {
 public:
  SpecError(std::string source, int line, int column, std::string field, std::string message);

  const std::string& source() const { return source_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& field() const { return field_; }

 private:
  std::string source_;
  int line_;
  int column_;
  std::string field_;
};

/// Parses and validates text-format specs. `source` names the text in errors. Paths stay as written.
proto::ExperimentSpec parse_experiment_spec(std::string_view text, std::string_view source);
proto::SweepSpec parse_sweep_spec(std::string_view text, std::string_view source);
/// Reads a file and parses it; a missing or unreadable file is a SpecError too. The spec's relative
/// paths come back resolved from the file's folder (sweeps/spec_paths.h), absolute.
proto::SweepSpec load_sweep_spec(const std::filesystem::path& file);
proto::ExperimentSpec load_experiment_spec(const std::filesystem::path& file);
/// The text of a sweep spec file with its relative paths made absolute as load_sweep_spec() resolves
/// them, comments and layout as written: the copy a results folder keeps (sweep.textproto), which
/// `sweep resume` and a fleet's tasks read back from any working directory.
std::string resolved_sweep_spec_text(const std::filesystem::path& file);
/// A fleet node's board (proto::NodeConfig, text format); SpecError naming the file and field.
proto::NodeConfig load_node_config(const std::filesystem::path& file);

/// For a field (path in ExperimentSpec, e.g. "workload.epochs") whose 0 protobuf cannot tell from
/// "not given" while leaving it out means something else (1 epoch): why a 0 there is refused. Specs
/// that write such a 0 are refused by the parsers; sweep axes use this for their values.
std::optional<std::string> zero_means_unset(std::string_view path);

/// Where a run of several machines (workload.distributed.nnodes > 1) learns node 0's port: from
/// its spec, as a run started by hand on each machine must (`train --nnodes`, an experiment spec);
/// or, for a sweep's run, from the Slurm job `sweep submit --slurm` gives it, which places every
/// node in the world (sweeps/fleet/multi_node_run.h).
enum class WorldPort { kInSpec, kFromSlurmJob };

/// Range checks of one experiment (after merging sweep values). `where` prefixes the field
/// names in errors (e.g. "run 3: "). Throws SpecError with line 0 when no location is known.
void validate_experiment(const proto::ExperimentSpec& spec, std::string_view source, std::string_view where = {},
                         WorldPort port = WorldPort::kInSpec);

}  // namespace jetchar::sweeps
