// What `sweep run` and `sweep task` share (cli/sweep_command.cpp, cli/sweep_fleet.cpp): the
// options naming a sweep and its board, and running a sweep, or a node's selection of its runs, on
// that board.
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "jetson/discovery/board_handle.h"
#include "proto/sweep_spec.pb.h"
#include "sweeps/session.h"

namespace jetchar::cli {

struct SweepOptions {
  std::string spec;
  std::string results;
  std::string board;
  std::string root;
  std::string state_dir;
  std::string kind;  ///< the spec's board kind to plan (a spec with kinds needs one)
  bool skip_validation = false;
  bool redact_serial = false;
  bool wait = false;  ///< wait for another writer of the results directory instead of refusing
};

/// The board the options name, else the spec's (its kind's first), else "auto".
jetson::BoardHandle open_sweep_board(const SweepOptions& options, const proto::SweepSpec& sweep);

/// Runs (or resumes) the sweep in `spec_file` with its results in `results_dir` (sweeps/session.h),
/// all its runs or `selection`: nothing is written before the plan is accepted on the board, so a
/// refused sweep leaves no results directory and no copy of its spec behind. Prints the summary and
/// throws CommandExit for a stopped sweep or runs that are not OK.
void run_sweep(const SweepOptions& options, const std::filesystem::path& spec_file,
               const std::filesystem::path& results_dir, std::optional<sweeps::RunSelection> selection = std::nullopt);

/// `sweep submit`, `task` and `status` under `group`, sharing `options` with the other sweep commands.
void add_fleet_sweep_commands(CLI::App& group, const std::shared_ptr<SweepOptions>& options);

}  // namespace jetchar::cli
