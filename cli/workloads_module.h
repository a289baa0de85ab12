// The LibTorch workload commands (JETCHAR_WORKLOAD_COMMANDS in cli/CMakeLists.txt) live in a module,
// jetchar-workloads.so, that jetchar loads only when the command line asks for one of them: LibTorch
// and the libraries it brings take about half a second to load and initialise, which the other
// commands never pay. Loading it registers its commands (cli/command.h) beside jetchar's own.
#pragma once

#include <CLI/CLI.hpp>

namespace jetchar::cli {

/// Whether `argv` needs the module's commands: one of them, a word that is none of `app`'s own
/// commands (a typo's suggestion weighs every command), `help`, or the whole command list
/// (`jetchar --help`, nothing at all). `--version` alone does not.
bool workloads_needed(const CLI::App& app, int argc, const char* const* argv);

/// Loads the module once: beside this executable (the build tree), else where the package installs
/// it relative to the executable's folder. Throws std::runtime_error naming the paths and the
/// loader's message when it cannot.
void load_workloads();

}  // namespace jetchar::cli
