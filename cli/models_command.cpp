// `jetchar models [NAME...]`: the models jetchar can train and time, with parameters and
// multiply-accumulates per sample at the default input (counted over conv and linear layers by
// running the model's forward code once, so the figures are those of the code, not of a table; the
// counted layers return zeros of their output shape, so listing them all takes seconds).
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "experiments/models/registry.h"

namespace {

struct ModelsOptions {
  std::vector<std::string> names;
  bool json = false;
};

// 11689512 -> "11,689,512"
std::string grouped(std::int64_t value) {
  std::string digits = std::to_string(value);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<std::size_t>(i), ",");
  return digits;
}

std::string human(double value) {
  if (value >= 1e9) return fmt::format("{:.3f} G", value / 1e9);
  if (value >= 1e6) return fmt::format("{:.3f} M", value / 1e6);
  if (value >= 1e3) return fmt::format("{:.1f} k", value / 1e3);
  return fmt::format("{:.0f}", value);
}

void run_models(const ModelsOptions& options) {
  using namespace jetchar::experiments;
  std::vector<const ModelSpec*> specs;
  if (options.names.empty()) {
    for (const auto& spec : model_registry()) specs.push_back(&spec);
  } else {
    for (const auto& name : options.names) specs.push_back(&find_model(name));  // throws for unknown names
  }
  torch::NoGradGuard no_grad;
  nlohmann::json rows = nlohmann::json::array();
  if (!options.json) {
    fmt::print("{:<22} {:<24} {:>14} {:>12} {:>11}  {}\n", "model", "task", "parameters", "MACs/sample", "input",
               "description");
    std::fflush(stdout);
  }
  for (const auto* spec : specs) {
    auto model = make_model(*spec);
    const auto parameters = parameter_count(*model);
    const auto macs = macs_per_sample(*model, *spec, spec->default_input);
    if (options.json) {
      rows.push_back({{"name", spec->name},
                      {"task", task_name(spec->task)},
                      {"parameters", parameters},
                      {"macs_per_sample", macs},
                      {"default_input", spec->default_input},
                      {"default_classes", spec->default_classes},
                      {"description", spec->description}});
    } else {
      // One row at a time: the large models take a moment to build.
      fmt::print("{:<22} {:<24} {:>14} {:>12} {:>11}  {}\n", spec->name, task_name(spec->task), grouped(parameters),
                 human(static_cast<double>(macs)), spec->input_description(), spec->description);
      std::fflush(stdout);
    }
  }
  if (options.json) fmt::print("{}\n", rows.dump(2));
}

void add_models_command(CLI::App& app) {
  auto options = std::make_shared<ModelsOptions>();
  CLI::App* command =
      app.add_subcommand("models",
                         "List the models with parameters and MACs per sample at the default input (conv + linear "
                         "layers; attention matmuls, norms and activations are not counted)");
  command->add_option("names", options->names, "Only these models (default: all)");
  command->add_flag("--json", options->json, "Print JSON instead of a table");
  command->callback([options] { run_models(*options); });
}

}  // namespace

JETCHAR_REGISTER_COMMAND(40, add_models_command);
