// The manual page and the bash completion of jetchar, generated from the same CLI11 command tree
// that parses the command line, so neither can fall behind a command or an option.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>

namespace jetchar::cli {

/// The command at `path` below `root` ("device info" → `jetchar device info`); nullptr when there
/// is none. An empty path is the root itself.
CLI::App* find_command(CLI::App& root, const std::vector<std::string>& path);

/// A man(7) page of every command: synopsis, options, examples (from each command's help footer)
/// and the exit codes. `version` ("jetchar 0.1.0 (...)") goes in the page's title line.
std::string manual_page(const CLI::App& root, std::string_view version);

/// A bash script defining the completion of `jetchar`: subcommands by position, then the options
/// of the command typed so far; anything else falls back to file names.
std::string bash_completion(const CLI::App& root);

}  // namespace jetchar::cli
