// The jetchar executable: parses the command line, lets the registered subcommands run, and maps
// errors to one line on stderr and an exit code (cli/exit_code.h).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <system_error>

#include "cli/command.h"
#include "cli/exit_code.h"
#include "jetchar/version.h"
#include "sysfs/error.h"

namespace {

using jetchar::cli::ExitCode;

ExitCode exit_code_for_errno(int error_number) {
  return (error_number == EACCES || error_number == EPERM || error_number == EROFS) ? jetchar::cli::kPermission
                                                                                      : jetchar::cli::kBadInput;
}

int report(const std::exception& error, ExitCode code) {
  std::fprintf(stderr, "jetchar: error: %s\n", error.what());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"jetchar: characterize deep-learning training and inference on NVIDIA Jetson boards"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(jetchar::version_string()));
  jetchar::cli::add_registered_commands(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const jetchar::sysfs::IoError& e) {
    return report(e, e.error_number() == 0 ? jetchar::cli::kFailure : exit_code_for_errno(e.error_number()));
  } catch (const jetchar::sysfs::FormatError& e) {
    return report(e, jetchar::cli::kBadInput);
  } catch (const std::filesystem::filesystem_error& e) {
    return report(e, exit_code_for_errno(e.code().value()));
  } catch (const std::system_error& e) {
    return report(e, exit_code_for_errno(e.code().value()));
  } catch (const std::invalid_argument& e) {
    return report(e, jetchar::cli::kBadInput);
  } catch (const std::exception& e) {
    return report(e, jetchar::cli::kFailure);
  }
  return jetchar::cli::kOk;
}
