// The jetchar executable: parses the command line, lets the registered subcommands run, and maps
// errors to one line on stderr and an exit code (cli/exit_code.h, shown at the end of --help).
#include <fmt/format.h>
#include <google/protobuf/stubs/logging.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "cli/command.h"
#include "cli/exit_code.h"
#include "cli/message_text.h"
#include "cli/workloads_module.h"
#include "jetchar/version.h"
#include "jetson/control/control_interrupt.h"
#include "sysfs/error.h"

namespace {

using jetchar::cli::ExitCode;

// Permission problems; a path or value that is not there or not of the kind it should be (bad
// input); anything else (EIO, ENOSPC, EBUSY, ...) failed at run time.
ExitCode exit_code_for_errno(int error_number) {
  switch (error_number) {
    case EACCES:
    case EPERM:
    case EROFS: return jetchar::cli::kPermission;
    case ENOENT:
    case ENOTDIR:
    case EISDIR:
    case EINVAL:
    case ENAMETOOLONG:
    case ELOOP:
    case ENXIO:
    case ENODEV:
    case ENOTTY:
    case ERANGE: return jetchar::cli::kBadInput;
    default: return jetchar::cli::kFailure;
  }
}

int report(const std::string& message, ExitCode code) {
  std::fprintf(stderr, "jetchar: error: %s\n", jetchar::cli::cut_for_terminal(message).c_str());
  return code;
}

// "jetchar results list": the command the parser had reached, for the --help hint of a usage error.
std::string command_path(const CLI::App& app) {
  std::string path = "jetchar";
  const CLI::App* at = &app;
  for (;;) {
    const auto chosen = at->get_subcommands();
    if (chosen.empty()) break;
    at = chosen.front();
    path += " " + at->get_name();
  }
  return path;
}

// Edits (insert, delete, replace one character) from `a` to `b`.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// "unknown command 'sweeps'; the nearest is 'sweep'" for a word where the command reached so far
// takes a subcommand and none was given; empty when that is not the mistake.
std::string unknown_command(const CLI::App& app, const CLI::ParseError& e) {
  const CLI::App* at = &app;
  while (!at->get_subcommands().empty()) at = at->get_subcommands().front();
  const bool unexpected =
      dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr || dynamic_cast<const CLI::RequiredError*>(&e) != nullptr;
  if (!unexpected || at->get_subcommands({}).empty()) return {};
  const auto extras = at->remaining();
  if (extras.empty() || extras.front().starts_with("-")) return {};
  std::string word = extras.front();
  std::string nearest;
  std::size_t best = 3;  // more than two edits away is no suggestion
  for (const CLI::App* command : at->get_subcommands({})) {
    const std::size_t distance = edit_distance(word, command->get_name());
    if (distance < best) best = distance, nearest = command->get_name();
  }
  if (word.size() > 40) word = word.substr(0, 40) + "...";
  return fmt::format("unknown command '{}'{}", word,
                     nearest.empty() ? "" : fmt::format("; did you mean '{}'?", nearest));
}

// CLI11's errors: a value that a check or a conversion refused is bad input (it names the option
// and the value); everything else is a command line that does not fit the command.
int report_parse_error(const CLI::App& app, const CLI::ParseError& e) {
  if (const std::string unknown = unknown_command(app, e); !unknown.empty()) {
    return report(fmt::format("{} (see `{} --help`)", unknown, command_path(app)), jetchar::cli::kUsage);
  }
  const bool value_error = dynamic_cast<const CLI::ValidationError*>(&e) != nullptr ||
                           dynamic_cast<const CLI::ConversionError*>(&e) != nullptr;
  return report(fmt::format("{} (see `{} --help`)", e.what(), command_path(app)),
                value_error ? jetchar::cli::kBadInput : jetchar::cli::kUsage);
}

// The command tree of every command registered so far.
std::unique_ptr<CLI::App> make_app() {
  auto app =
      std::make_unique<CLI::App>("jetchar: characterize deep-learning training and inference on NVIDIA Jetson boards");
  app->require_subcommand(1);
  app->set_version_flag("--version", std::string(jetchar::version_string()));
  app->footer(jetchar::cli::kExitCodeHelp);
  jetchar::cli::add_registered_commands(*app);
  return app;
}

// The command line parsed and run, errors mapped to their exit codes.
int run(int argc, char** argv) {
  // libprotobuf's own "[libprotobuf ERROR ...]" lines would reach the terminal beside jetchar's one
  // line: every parse jetchar does collects its errors itself and names the input.
  google::protobuf::SetLogHandler(nullptr);
  auto app_holder = make_app();
  CLI::App* app = app_holder.get();

  try {
    if (jetchar::cli::workloads_needed(*app, argc, argv)) {
      jetchar::cli::load_workloads();
      app_holder = make_app();
      app = app_holder.get();
    }
    app->parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app->exit(e);  // --help, --version: printed on stdout, status 0
  } catch (const CLI::ParseError& e) {
    return report_parse_error(*app, e);
  } catch (const jetchar::cli::CommandExit& e) {
    if (*e.what() != '\0') std::fprintf(stderr, "jetchar: %s\n", jetchar::cli::cut_for_terminal(e.what()).c_str());
    return e.code();
  } catch (const jetchar::cli::UsageError& e) {
    return report(fmt::format("{} (see `{} --help`)", e.what(), command_path(*app)), jetchar::cli::kUsage);
  } catch (const jetchar::jetson::Interrupted& e) {
    return report(e.what(), jetchar::cli::kInterrupted);
  } catch (const jetchar::sysfs::IoError& e) {
    return report(e.what(), e.error_number() == 0 ? jetchar::cli::kFailure : exit_code_for_errno(e.error_number()));
  } catch (const jetchar::sysfs::FormatError& e) {
    return report(e.what(), jetchar::cli::kBadInput);
  } catch (const std::filesystem::filesystem_error& e) {
    return report(e.what(), exit_code_for_errno(e.code().value()));
  } catch (const std::system_error& e) {
    return report(e.what(), exit_code_for_errno(e.code().value()));
  } catch (const std::invalid_argument& e) {
    return report(e.what(), jetchar::cli::kBadInput);
  } catch (const std::exception& e) {
    return report(e.what(), jetchar::cli::kFailure);
  }
  return jetchar::cli::kOk;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (...) {
    // Reporting an error failed itself (no memory for the message): the status still says so.
    std::fputs("jetchar: error: an unexpected failure\n", stderr);
    return jetchar::cli::kFailure;
  }
}
