#include "cli/workloads_module.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include "cli/command.h"

namespace jetchar::cli {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kModuleName = "jetchar-workloads.so";

}  // namespace

bool workloads_needed(const CLI::App& app, int argc, const char* const* argv) {
  if (argc < 2) return true;
  const std::string_view first = argv[1];
  if (first.starts_with("-")) return first != "--version";
  if (first == "help") return true;
  return app.get_subcommands([&](const CLI::App* sub) { return sub->get_name() == first; }).empty();
}

void load_workloads() {
  static void* module = nullptr;  // loaded for the process's life: its commands stay registered
  if (module != nullptr) return;
  const fs::path self = this_executable();
  if (self.empty()) throw std::runtime_error("cannot find this executable through /proc/self/exe");
  const fs::path folder = self.parent_path();
  const fs::path beside = folder / kModuleName;
  const fs::path installed = (folder / JETCHAR_WORKLOADS_FROM_BIN).lexically_normal();
  const fs::path& path = fs::exists(beside) ? beside : installed;
  if (!fs::exists(path)) {
    throw std::runtime_error(fmt::format(
        "the LibTorch workload commands ({}) are in {}, which is neither at {} nor at {}: reinstall jetchar",
        JETCHAR_WORKLOAD_COMMANDS, kModuleName, beside.string(), installed.string()));
  }
  module = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (module == nullptr) {
    const char* why = ::dlerror();
    throw std::runtime_error(fmt::format("cannot load the LibTorch workload commands ({}) from {}: {}",
                                         JETCHAR_WORKLOAD_COMMANDS, path.string(),
                                         why != nullptr ? why : "unknown error"));
  }
}

}  // namespace jetchar::cli
