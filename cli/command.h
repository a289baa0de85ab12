// Subcommands register themselves: each cli/<name>_command.cpp adds its CLI11 subcommand through
// a static JETCHAR_REGISTER_COMMAND, so adding a command never edits main.cpp.
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>

namespace jetchar::cli {

using CommandAdder = void (*)(CLI::App& app);

/// Records an adder; called during static initialisation. `order` sorts --help output.
bool register_command(int order, CommandAdder adder);
/// Adds every registered subcommand to `app`, in `order`.
void add_registered_commands(CLI::App& app);
/// The subcommand `name` of `parent`, created on first use: several files may add commands to one
/// group (`jetchar device info` and `jetchar device set` live in different files).
CLI::App& command_group(CLI::App& parent, const std::string& name, const std::string& description);
/// Shows `examples` ("Examples:\n  jetchar ...") at the end of `command`'s --help, above the exit
/// codes every help text ends with. tests/cli/documented_examples_test.cpp runs each example.
void add_examples(CLI::App& command, const std::string& examples);
/// This jetchar executable's path (/proc/self/exe); empty when the kernel does not say.
std::filesystem::path this_executable();

}  // namespace jetchar::cli

#define JETCHAR_REGISTER_COMMAND(order, adder) \
  static const bool jetchar_command_registered_##adder = ::jetchar::cli::register_command(order, adder)
