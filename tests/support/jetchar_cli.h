// The jetchar executable as tests start it. In a cross build the tests and jetchar are aarch64
// binaries run under the build's emulator (CMAKE_CROSSCOMPILING_EMULATOR: qemu-aarch64 -L
// <sysroot>); a test that exec'd jetchar directly would get ENOEXEC from a host without
// binfmt_misc, so every start goes through jetchar_command(), which puts the emulator first.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace jetchar::testing {

/// $JETCHAR_CLI (e.g. a jetchar built from another tree), else <build>/cli/jetchar.
std::filesystem::path jetchar_executable();

/// The argument vector that runs jetchar with `args`: the emulator's words (if the tests were
/// cross-built), the executable, then `args`. Its first element is an absolute path.
std::vector<std::string> jetchar_command(const std::vector<std::string>& args);

/// Starts jetchar with `args`, standard output to `out` and standard error to `err` (created or
/// truncated; the same path sends both to one file), in the working directory `cwd` (empty: this
/// process's). Standard input is /dev/null. Returns the child's pid; killing it kills jetchar,
/// emulated or not.
pid_t spawn_jetchar(const std::vector<std::string>& args, const std::filesystem::path& out = "/dev/null",
                    const std::filesystem::path& err = "/dev/null", const std::filesystem::path& cwd = {});

/// Waits for `child`: its exit code, or 128 + the signal that ended it.
int wait_exit_status(pid_t child);

/// spawn_jetchar() and wait_exit_status() in one.
int run_jetchar(const std::vector<std::string>& args, const std::filesystem::path& out = "/dev/null",
                const std::filesystem::path& err = "/dev/null");

}  // namespace jetchar::testing
