// Output that `train` and `infer` share about a run they carried out through the executor: the
// board as their output names it, the record a sweep would store for the run as JSON, and the
// record's notes, and how a run refused before its workload began ends the command. The
// workload's own figures are each command's to print.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "jetson/discovery/board_handle.h"
#include "proto/run_result.pb.h"

namespace jetchar::cli {

/// The board's label, and that its power figures are modelled where they are.
std::string measured_board_label(const jetson::BoardHandle& board);

/// The record as JSON: Protobuf's JSON mapping with the .proto's field names (what `results show`
/// prints in text format).
nlohmann::json record_json(const proto::RunResult& record);

/// The record's notes (an OK run's reason: where the times or energies come from, what was not
/// measured) as one "jetchar: note:" line on stderr; nothing when it has none.
void print_notes(const proto::RunResult& record);

/// "energy: SOURCE on BOARD; MEASURED" where the run measured power (`source` names the total),
/// else "energy: BOARD measures no power, ABSENT".
std::string energy_line(const std::string& source, const std::string& board_label, const std::string& measured,
                        const std::string& absent);

/// A run that ended before its workload began (the data set, the model or the board refused it)
/// ends the command: bad input (exit 3) when INVALID, 130 when a signal ended it, else a failure;
/// the message is "WHAT: the record's reason".
[[noreturn]] void throw_refused(const proto::RunResult& record, const std::string& what);

}  // namespace jetchar::cli
