#include "cli/command.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "cli/exit_code.h"

namespace jetchar::cli {
namespace {

std::vector<std::pair<int, CommandAdder>>& registry() {
  static std::vector<std::pair<int, CommandAdder>> adders;  // function-local: safe init order
  return adders;
}

}  // namespace

CLI::App& command_group(CLI::App& parent, const std::string& name, const std::string& description) {
  for (CLI::App* existing : parent.get_subcommands([&](CLI::App* sub) { return sub->get_name() == name; })) {
    return *existing;
  }
  CLI::App* group = parent.add_subcommand(name, description);
  group->require_subcommand(1);
  return *group;
}

void add_examples(CLI::App& command, const std::string& examples) { command.footer(examples + "\n\n" + kExitCodeHelp); }

std::filesystem::path this_executable() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : self;
}

bool register_command(int order, CommandAdder adder) {
  registry().emplace_back(order, adder);
  return true;
}

void add_registered_commands(CLI::App& app) {
  auto adders = registry();
  std::stable_sort(adders.begin(), adders.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [order, adder] : adders) adder(app);
}

}  // namespace jetchar::cli
