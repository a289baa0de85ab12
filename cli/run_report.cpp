#include "cli/run_report.h"

#include <fmt/format.h>
#include <google/protobuf/util/json_util.h>

#include <cstdio>
#include <stdexcept>

#include "cli/exit_code.h"

namespace jetchar::cli {

std::string measured_board_label(const jetson::BoardHandle& board) {
  return board.hooks->power_modelled() ? board.label + ", power figures are modelled" : board.label;
}

nlohmann::json record_json(const proto::RunResult& record) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  std::string text;
  if (const auto status = google::protobuf::util::MessageToJsonString(record, &text, options); !status.ok()) {
    throw std::runtime_error(fmt::format("the run's record as JSON: {}", status.ToString()));
  }
  return nlohmann::json::parse(text);
}

void print_notes(const proto::RunResult& record) {
  if (record.status() == proto::OK && !record.reason().empty())
    std::fprintf(stderr, "jetchar: note: %s\n", record.reason().c_str());
}

std::string energy_line(const std::string& source, const std::string& board_label, const std::string& measured,
                        const std::string& absent) {
  if (source.empty()) return fmt::format("energy: {} measures no power, {}", board_label, absent);
  return fmt::format("energy: {} on {}; {}", source, board_label, measured);
}

void throw_refused(const proto::RunResult& record, const std::string& what) {
  const std::string why = fmt::format("{}: {}", what, record.reason());
  if (record.status() == proto::INVALID) throw std::invalid_argument(why);
  if (record.status() == proto::INTERRUPTED) throw CommandExit(kInterrupted, why);
  throw std::runtime_error(why);
}

}  // namespace jetchar::cli
