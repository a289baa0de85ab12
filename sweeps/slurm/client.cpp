#include "sweeps/slurm/client.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace jetchar::sweeps {

namespace fs = std::filesystem;

std::optional<std::string> find_program(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    const fs::path candidate = fs::path(dir) / program;
    if (::access(candidate.c_str(), X_OK) == 0) return fs::absolute(candidate).string();
  }
  return std::nullopt;
}

jetson::ProcessResult run_slurm_program(const std::string& program, std::vector<std::string> arguments) {
  const auto found = find_program(program);
  if (!found) {
    throw std::runtime_error(
        fmt::format("{} is not on PATH: this machine is not a Slurm client (Debian: slurm-client)", program));
  }
  arguments.insert(arguments.begin(), *found);
  return jetson::run_process(arguments, {}, std::chrono::seconds(60));
}

std::string sbatch(std::vector<std::string> arguments) {
  arguments.insert(arguments.begin(), "--parsable");
  const auto result = run_slurm_program("sbatch", arguments);
  // --parsable: "ID" or "ID;CLUSTER".
  std::string id = result.output.substr(0, result.output.find_first_of(";\n"));
  if (result.exit_code != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
    throw std::runtime_error(
        fmt::format("sbatch {} failed (exit {}): {}", arguments.back(), result.exit_code, result.output));
  }
  return id;
}

std::string drain_node(const std::string& node, const std::string& reason) {
  try {
    const auto result =
        run_slurm_program("scontrol", {"update", "nodename=" + node, "state=drain", "reason=" + reason.substr(0, 200)});
    return result.exit_code == 0 ? fmt::format("node {} drained", node)
                                 : fmt::format("draining node {} failed: {}", node, result.output);
  } catch (const std::exception& e) {
    return fmt::format("draining node {} failed: {}", node, e.what());
  }
}

fs::path results_of_job(const std::string& job) {
  const auto shown = run_slurm_program("scontrol", {"show", "job", job});
  if (shown.exit_code != 0) {
    throw std::invalid_argument(
        fmt::format("job {}: slurmctld does not know it ({}); name the sweep's results directory instead", job,
                    shown.output.substr(0, shown.output.find('\n'))));
  }
  const std::size_t at = shown.output.find("Command=");
  const std::string command = at == std::string::npos
                                  ? std::string()
                                  : shown.output.substr(at + 8, shown.output.find_first_of(" \n", at + 8) - at - 8);
  const fs::path script(command);
  if (script.parent_path().filename() != "slurm" ||
      !fs::exists(script.parent_path().parent_path() / "sweep.textproto")) {
    throw std::invalid_argument(
        fmt::format("job {} (command '{}') is not a job `jetchar sweep submit` made", job, command));
  }
  return script.parent_path().parent_path();
}

}  // namespace jetchar::sweeps
