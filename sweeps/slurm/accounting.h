// What `sacct` says of a fleet sweep's jobs (`jetchar sweep status`): its output read back into
// jobs, array tasks, states and nodes, counted per node.
//
// The format is sacct's (Slurm 22.05, sacct(1)): with `--parsable2 --noheader` every line is one
// job, array task or step, its fields in the order of `--format`, separated by '|' with no '|' at
// the end and no header line. JobID is "JobID[.JobStep]" for a job, "ArrayJobID_ArrayTaskID" for
// an array task, and "ArrayJobID_[TaskList]" for the tasks of an array still pending as one
// record (a list such as "0-7%2" or "1,3,5-6", where "%N" is the limit of tasks at a time).
// State is one of the job state codes (COMPLETED, RUNNING, PENDING, FAILED, NODE_FAIL,
// REQUEUED, PREEMPTED, ...), and "CANCELLED by <uid>" for a cancelled job. NodeList is a node,
// a hostlist, or "None assigned" while pending.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace jetchar::sweeps {

/// The --format that parse_sacct reads, in this order.
inline constexpr std::string_view kSacctFormat = "JobID,JobName,State,NodeList";

struct SacctRecord {
  std::string job_id;     ///< as printed: "812", "812_3", "812_[4-7%2]", "812.batch"
  std::string job;        ///< the job (array job) number: "812"
  bool step = false;      ///< a step of a job ("812.batch", "812_3.0"), not a job or array task
  std::size_t tasks = 1;  ///< how many array tasks the record stands for ("812_[4-7]": 4)
  std::string name;
  std::string state;  ///< the state code: "CANCELLED" of "CANCELLED by 0"
  std::string nodes;  ///< "" while none is assigned
};

/// Reads `sacct --parsable2 --noheader --format=<kSacctFormat>` output. Blank lines are skipped.
/// Throws std::invalid_argument naming the line (number and text) and what is wrong: another
/// number of fields, a JobID or State not in sacct's form.
std::vector<SacctRecord> parse_sacct(std::string_view text);

/// Array tasks and jobs (steps left out) per node and state: {"b1": {"COMPLETED": 4}}; tasks
/// not on a node yet are under "(pending)".
std::map<std::string, std::map<std::string, std::size_t>> sacct_states_by_node(const std::vector<SacctRecord>& records);

}  // namespace jetchar::sweeps
