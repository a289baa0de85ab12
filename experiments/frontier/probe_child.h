// Runs one frontier probe in a child process: fork + execv of `executable` with
// `leading_args` followed by the request as one JSON argument, stdout and stderr read through
// pipes, the child waited for. The child's verdict is the JSON object on its stdout's last line
// (probe_protocol.h). When the child dies without one, the outcome is built from how it ended:
// killed by SIGKILL (the kernel's OOM killer, a cgroup's memory.max) or with an out-of-memory
// message on stderr (libgomp's "out of memory allocating", a std::bad_alloc that escaped) is out
// of memory; anything else is a failure with the signal or the exit status and stderr's tail.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "experiments/frontier/probe_protocol.h"

namespace jetchar::experiments {

struct ProbeCommand {
  std::filesystem::path executable;
  /// Arguments before the request JSON, e.g. {"frontier-probe"}.
  std::vector<std::string> leading_args;
  /// A child still running after this long is killed and the probe failed (nullopt: no limit).
  std::optional<std::chrono::seconds> timeout;
};

/// The running program's own executable for probes that re-execute it: /proc/self/exe itself, not
/// the path it links to, so that a child runs the very image this process runs even when the file
/// was rebuilt or removed during a long search (a rebuild once made a probe's execv fail with 127).
std::filesystem::path own_executable();

/// Throws std::system_error when the child cannot be started; everything after that is the outcome.
ProbeOutcome run_probe_child(const ProbeCommand& command, const ProbeRequest& request);

/// How a child that printed no verdict is judged (exposed for tests): `signal` (0 when it exited)
/// or `exit_code`, and the tail of its stderr.
ProbeOutcome outcome_without_verdict(int signal, int exit_code, const std::string& stderr_tail);

}  // namespace jetchar::experiments
