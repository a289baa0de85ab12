// `jetchar help [COMMAND...]`: a command's help, the manual page (--man) or the bash completion
// (--bash-completion), all generated from the command definitions (cli/command_manual.h). The
// package installs the last two, made by the build (cli/CMakeLists.txt).
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/command_manual.h"
#include "cli/exit_code.h"
#include "jetchar/version.h"

namespace jetchar::cli {
namespace {

struct HelpOptions {
  std::vector<std::string> topic;
  bool man = false;
  bool bash_completion = false;
  std::string output;
};

std::string valid_topics(CLI::App& at) {
  std::string names;
  for (const CLI::App* sub : at.get_subcommands({})) {
    if (sub->get_group().empty()) continue;
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  return names;
}

/// Writes `text` to `file` (replaced only once complete, and said so) or to stdout when `file` is
/// empty.
void write_text(const std::string& text, const std::string& file) {
  if (file.empty()) {
    std::fputs(text.c_str(), stdout);
    return;
  }
  const std::filesystem::path partial = file + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw std::runtime_error(fmt::format("{}: cannot write", partial.string()));
  }
  std::filesystem::rename(partial, file);
  std::printf("wrote %s\n", file.c_str());
}

void run_help(CLI::App& root, const HelpOptions& options) {
  if (options.man || options.bash_completion) {
    if (!options.topic.empty()) throw UsageError("--man and --bash-completion cover every command: name no COMMAND");
    write_text(options.man ? manual_page(root, version_string()) : bash_completion(root), options.output);
    return;
  }
  if (!options.output.empty()) throw UsageError("-o goes with --man or --bash-completion");
  CLI::App* at = &root;
  std::string path = "jetchar";
  for (const auto& name : options.topic) {
    CLI::App* next = find_command(*at, {name});
    if (next == nullptr) {
      throw UsageError(fmt::format("'{}' is not a command of `{}`; valid: {}", name, path, valid_topics(*at)));
    }
    at = next;
    path += " " + name;
  }
  const auto last_space = path.rfind(' ');
  std::fputs(at->help(at == &root ? "" : path.substr(0, last_space)).c_str(), stdout);
}

void add_help_command(CLI::App& app) {
  auto options = std::make_shared<HelpOptions>();
  CLI::App* help =
      app.add_subcommand("help", "Help on a command (as COMMAND --help), the manual page or the bash completion");
  help->add_option("command", options->topic, "The command, e.g. `sweep run`");
  help->add_flag("--man", options->man, "Print the manual page (man(7) format) of every command");
  help->add_flag("--bash-completion", options->bash_completion, "Print the bash completion script");
  help->add_option("-o,--output", options->output, "Write the manual page or completion script to this file");
  help->get_option("--man")->excludes("--bash-completion");
  add_examples(*help,
               "Examples:\n"
               "  jetchar help sweep run\n"
               "  jetchar help --man -o jetchar.1");
  help->callback([&app, options] { run_help(app, *options); });
}

}  // namespace

JETCHAR_REGISTER_COMMAND(90, add_help_command);

}  // namespace jetchar::cli
