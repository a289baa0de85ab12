#include "sweeps/slurm/accounting.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "sweeps/slurm/decimal_field.h"

namespace jetchar::sweeps {
namespace {

std::size_t number(std::string_view text) { return static_cast<std::size_t>(std::stoull(std::string(text))); }

// "0-7%2", "1,3,5-6": how many tasks; 0 when not a task list.
std::size_t task_count(std::string_view list) {
  if (const auto percent = list.find('%'); percent != std::string_view::npos) {
    if (!is_decimal_field(list.substr(percent + 1))) return 0;
    list = list.substr(0, percent);
  }
  std::size_t count = 0;
  while (true) {
    const auto comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    const auto dash = item.find('-');
    if (dash == std::string_view::npos) {
      if (!is_decimal_field(item)) return 0;
      ++count;
    } else {
      const std::string_view from = item.substr(0, dash), to = item.substr(dash + 1);
      if (!is_decimal_field(from) || !is_decimal_field(to) || number(to) < number(from)) return 0;
      count += number(to) - number(from) + 1;
    }
    if (comma == std::string_view::npos) break;
    list = list.substr(comma + 1);
  }
  return count;
}

// Fills job, step and tasks from a JobID; false when it is not in sacct's form.
bool read_job_id(std::string_view id, SacctRecord& record) {
  if (const auto dot = id.find('.'); dot != std::string_view::npos) {
    const std::string_view step = id.substr(dot + 1);
    if (step.empty() ||
        !std::all_of(step.begin(), step.end(), [](unsigned char c) { return std::isalnum(c) || c == '+'; })) {
      return false;
    }
    record.step = true;
    id = id.substr(0, dot);
  }
  const auto underscore = id.find('_');
  const std::string_view job = id.substr(0, underscore);
  if (!is_decimal_field(job)) return false;
  record.job = std::string(job);
  if (underscore == std::string_view::npos) return true;
  const std::string_view task = id.substr(underscore + 1);
  if (is_decimal_field(task)) return true;
  if (task.size() < 3 || task.front() != '[' || task.back() != ']' || record.step) return false;
  record.tasks = task_count(task.substr(1, task.size() - 2));
  return record.tasks > 0;
}

}  // namespace

std::vector<SacctRecord> parse_sacct(std::string_view text) {
  std::vector<SacctRecord> records;
  std::size_t line_number = 0;
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    const auto bad = [&](const std::string& what) {
      return std::invalid_argument(
          fmt::format("sacct output line {} '{}': {} (expected `sacct --parsable2 --noheader "
                      "--format={}`: JobID|JobName|State|NodeList)",
                      line_number, line.substr(0, 200), what, kSacctFormat));
    };
    std::vector<std::string_view> fields;
    for (std::size_t start = 0;;) {
      const auto bar = line.find('|', start);
      fields.push_back(line.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start));
      if (bar == std::string_view::npos) break;
      start = bar + 1;
    }
    if (fields.size() != 4) throw bad(fmt::format("{} fields, not 4", fields.size()));
    SacctRecord record;
    record.job_id = std::string(fields[0]);
    if (!read_job_id(fields[0], record)) {
      throw bad(fmt::format("JobID '{}' is not JOB, JOB.STEP, ARRAYJOB_TASK or ARRAYJOB_[TASKS]", fields[0]));
    }
    record.name = std::string(fields[1]);
    // "CANCELLED by 0": the code, then who.
    const std::string_view state = fields[2].substr(0, fields[2].find(' '));
    if (state.empty() ||
        !std::all_of(state.begin(), state.end(), [](unsigned char c) { return std::isupper(c) || c == '_'; })) {
      throw bad(fmt::format("State '{}' is not a job state code (COMPLETED, RUNNING, PENDING, ...)", fields[2]));
    }
    record.state = std::string(state);
    record.nodes = fields[3] == "None assigned" ? std::string() : std::string(fields[3]);
    records.push_back(std::move(record));
  }
  return records;
}

std::map<std::string, std::map<std::string, std::size_t>> sacct_states_by_node(
    const std::vector<SacctRecord>& records) {
  std::map<std::string, std::map<std::string, std::size_t>> counts;
  for (const auto& record : records) {
    if (record.step) continue;
    counts[record.nodes.empty() ? "(pending)" : record.nodes][record.state] += record.tasks;
  }
  return counts;
}

}  // namespace jetchar::sweeps
