#include "sweeps/slurm/submission.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

namespace jetchar::sweeps {
namespace {

// Characters of a node name that Slurm's hostlist syntax reads as structure ("b[1-3]", "a,b").
bool plain_node_name(std::string_view name) {
  return std::all_of(name.begin(), name.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '_' || c == '.'; });
}

std::string index_list(const std::vector<std::size_t>& chunks) {
  std::string text;
  for (const std::size_t chunk : chunks) text += fmt::format("{}{}", text.empty() ? "" : ",", chunk);
  return text;
}

std::string array_script(const SlurmSubmitOptions& o, const std::string& job_name, const std::string& array,
                         const std::string& node) {
  const std::string kind = o.kind.empty() ? std::string() : " --kind " + shell_quoted(o.kind);
  const std::string slurm_dir = (o.results / "slurm").string();
  std::string text = "#!/bin/bash\n";
  text += fmt::format("#SBATCH --job-name={}\n", job_name);
  text += fmt::format("#SBATCH --array={}\n", array);
  text += "#SBATCH --nodes=1\n#SBATCH --ntasks=1\n#SBATCH --exclusive\n#SBATCH --requeue\n";
  if (!node.empty()) text += fmt::format("#SBATCH --nodelist={}\n", node);
  if (!o.partition.empty()) text += fmt::format("#SBATCH --partition={}\n", o.partition);
  if (!o.constraint.empty()) text += fmt::format("#SBATCH --constraint={}\n", o.constraint);
  text += fmt::format("#SBATCH --output={}/%x-%A_%a.out\n", slurm_dir);
  text += fmt::format(
      "# Chunk $SLURM_ARRAY_TASK_ID ({} run{} of the {}plan) on this node's board, into {}/nodes/$SLURMD_NODENAME.\n"
      "# The board comes from the node's config; a pending change journal is restored first, and a board\n"
      "# that cannot be restored drains this node. A requeued task skips the runs already stored.\n",
      o.runs_per_task, o.runs_per_task == 1 ? "" : "s", o.kind.empty() ? "" : "kind " + o.kind + "'s ",
      o.results.string());
  text +=
      fmt::format("exec {} sweep task {}{} --chunk \"$SLURM_ARRAY_TASK_ID\" --runs-per-task {} --node-config {}{}\n",
                  shell_quoted(o.jetchar), shell_quoted(o.results.string()), kind, o.runs_per_task,
                  shell_quoted(o.node_config), o.redact_serial ? " --redact-serial" : "");
  return text;
}

// The job of one multi-node run: one task per node in one srun step, each `sweep task --run` on
// its node's board (sweeps/fleet/multi_node_run.h says how the tasks share the run).
std::string multi_node_script(const SlurmSubmitOptions& o, const std::string& job_name, const SlurmMultiNodeRun& run,
                              const std::vector<std::string>& nodes) {
  const std::string kind = o.kind.empty() ? std::string() : " --kind " + shell_quoted(o.kind);
  const std::string slurm_dir = (o.results / "slurm").string();
  std::string text = "#!/bin/bash\n";
  text += fmt::format("#SBATCH --job-name={}\n", job_name);
  text += fmt::format("#SBATCH --nodes={}\n#SBATCH --ntasks-per-node=1\n#SBATCH --exclusive\n#SBATCH --requeue\n",
                      run.nodes);
  if (!nodes.empty()) text += fmt::format("#SBATCH --nodelist={}\n", fmt::join(nodes, ","));
  if (!o.partition.empty()) text += fmt::format("#SBATCH --partition={}\n", o.partition);
  if (!o.constraint.empty()) text += fmt::format("#SBATCH --constraint={}\n", o.constraint);
  text += fmt::format("#SBATCH --output={}/%x-%j.out\n", slurm_dir);
  text += fmt::format(
      "# Run {} trains on {} nodes (workload.distributed.nnodes): srun starts one task per node, each on its node's\n"
      "# board (the node's config; a pending change journal restored first). Each task is placed in the world by\n"
      "# the step (node rank SLURM_PROCID, node 0 = the step's first node, the port from the job id); node 0 stores\n"
      "# the run in {}/nodes/<node 0>, the others store nothing for it. A rank that fails is named in node 0's\n"
      "# record: no task kills the others. A requeued job runs it again unless a node stored it already.\n",
      run.run_id, run.nodes, o.results.string());
  text += fmt::format(
      "exec srun --nodes={} --ntasks={} --ntasks-per-node=1 --kill-on-bad-exit=0 {} sweep task {}{} --run {} "
      "--node-config {}{}\n",
      run.nodes, run.nodes, shell_quoted(o.jetchar), shell_quoted(o.results.string()), kind, shell_quoted(run.run_id),
      shell_quoted(o.node_config), o.redact_serial ? " --redact-serial" : "");
  return text;
}

// The nodes of the node list for the `index`-th multi-node run of a kind: `count` of them in turn,
// so that the runs spread over the list; each pinned, so that a requeued job returns to its boards.
std::vector<std::string> nodes_in_turn(const std::vector<std::string>& list, std::size_t index, std::size_t count) {
  std::vector<std::string> nodes;
  for (std::size_t i = 0; i < count; ++i) nodes.push_back(list[(index * count + i) % list.size()]);
  return nodes;
}

// The job after every array: restore each node's board that a task left changed, then merge and
// report (slurm_submission.h says why the restore comes first).
SlurmScript final_script(const SlurmSubmitOptions& o, const std::string& base) {
  const std::string results = o.results.string();
  const std::string jetchar = shell_quoted(o.jetchar);
  const std::string restore = fmt::format("{} sweep task {} --restore-only --node-config {}", jetchar,
                                          shell_quoted(results), shell_quoted(o.node_config));
  SlurmScript merge;
  merge.name = "merge.sbatch";
  merge.text = "#!/bin/bash\n";
  merge.text += fmt::format("#SBATCH --job-name={}-merge\n#SBATCH --nodes=1\n#SBATCH --ntasks=1\n", base);
  if (!o.partition.empty()) merge.text += fmt::format("#SBATCH --partition={}\n", o.partition);
  merge.text += fmt::format("#SBATCH --output={}/slurm/%x-%j.out\n", results);
  merge.text += fmt::format(
      "# Submitted with --dependency=afterany:<every array job and multi-node run's job>: runs once every task has\n"
      "# ended, whatever its end. First every node that ran a task restores its board (a task requeued elsewhere\n"
      "# left it changed; a no-op where nothing is pending), then what the nodes stored is merged (each run once)\n"
      "# into {}.\n",
      results);
  merge.text += "set -euo pipefail\nshopt -s nullglob\n";
  merge.text +=
      fmt::format("waiting=()\nfor dir in {}/nodes/*/; do\n  node=$(basename \"$dir\")\n", shell_quoted(results));
  merge.text += fmt::format(
      "  if [ \"$node\" = \"${{SLURMD_NODENAME:-}}\" ]; then\n    {} --node \"$node\" || "
      "echo \"node $node: restore failed (above)\" >&2\n    continue\n  fi\n",
      restore);
  merge.text += "  state=$(sinfo -h -n \"$node\" -o %T 2>/dev/null || true)\n  case \"$state\" in\n";
  merge.text += fmt::format(
      "    idle*|mixed*|allocated*|completing*)\n"
      "      sbatch --wait --quiet --job-name={}-restore-\"$node\" --nodelist=\"$node\" --nodes=1 --ntasks=1{} \\\n"
      "        --output={}/slurm/%x-%j.out --wrap {} &\n"
      "      waiting+=(\"$!:$node\") ;;\n",
      base, o.partition.empty() ? "" : " --partition=" + o.partition, shell_quoted(results),
      shell_quoted("exec " + restore));
  merge.text +=
      "    *) echo \"node $node is ${state:-unknown to Slurm}: its board is restored by its next task, or at boot by "
      "jetchar-restore.service\" >&2 ;;\n  esac\ndone\n";
  merge.text +=
      "for entry in \"${waiting[@]}\"; do\n  wait \"${entry%%:*}\" || echo \"node ${entry#*:}: restore job failed "
      "(its output is under slurm/)\" >&2\ndone\n";
  merge.text += fmt::format("stores=({}/nodes/*/results.db)\n", shell_quoted(results));
  merge.text +=
      "if [ ${#stores[@]} -eq 0 ]; then echo \"no node stored any run under " + results + "/nodes\" >&2; exit 1; fi\n";
  merge.text += fmt::format("{} results merge {} \"${{stores[@]}}\"\n", jetchar, shell_quoted(results));
  merge.text +=
      fmt::format("{} report {} -o {}\n", jetchar, shell_quoted(results), shell_quoted(results + "/report.html"));
  return merge;
}

}  // namespace

ChunkRange chunk_range(std::size_t chunk, std::size_t runs_per_task, std::size_t run_count) {
  const std::size_t first = std::min(run_count, chunk * runs_per_task);
  return {first, std::min(run_count, first + runs_per_task)};
}

std::string shell_quoted(std::string_view word) {
  std::string quoted = "'";
  for (const char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::string node_config_path(std::string_view pattern, std::string_view node) {
  std::string path;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'n') {
      path += node;
      ++i;
    } else {
      path += pattern[i];
    }
  }
  return path;
}

std::vector<std::string> parse_node_names(std::string_view list, std::string_view option) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = list.find(',', start);
    const std::string_view name =
        list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (name.empty()) {
      throw std::invalid_argument(
          fmt::format("{} '{}': an empty node name; give node names separated by commas (b1,b2,b3)", option, list));
    }
    if (!plain_node_name(name)) {
      throw std::invalid_argument(fmt::format(
          "{} '{}': node name '{}' is not a plain name (letters, digits, '-', '_', '.'); expand a hostlist such as "
          "b[1-3] with `scontrol show hostnames 'b[1-3]' | paste -sd,`",
          option, list, name));
    }
    if (!seen.insert(std::string(name)).second) {
      throw std::invalid_argument(fmt::format("{} '{}': node '{}' is named twice", option, list, name));
    }
    names.emplace_back(name);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return names;
}

SlurmSubmission plan_slurm_submission(std::size_t run_count, const SlurmSubmitOptions& o) {
  if (!o.nodes.empty() && o.node_count) throw std::invalid_argument("--nodes takes a node list or a count, not both");
  return plan_slurm_submission({SlurmKindRuns{"", o.constraint, o.nodes, run_count}}, o);
}

SlurmSubmission plan_slurm_submission(const std::vector<SlurmKindRuns>& kinds, const SlurmSubmitOptions& options) {
  if (options.runs_per_task == 0) throw std::invalid_argument("--runs-per-task 0: give 1 or more runs per task");
  if (options.node_count && *options.node_count == 0) throw std::invalid_argument("--nodes 0: give 1 or more nodes");
  if (kinds.empty()) throw std::invalid_argument("the sweep plans no runs: nothing to submit");
  SlurmSubmission submission;
  const std::string base = "jetchar-" + (options.sweep_name.empty() ? std::string("sweep") : options.sweep_name);
  for (const auto& kind : kinds) {
    const std::string of_kind = kind.kind.empty() ? "" : fmt::format("kind {}: ", kind.kind);
    if (kind.run_count == 0 && kind.multi_node_runs.empty())
      throw std::invalid_argument(of_kind + "the sweep plans no runs: nothing to submit");
    for (const auto& node : kind.nodes) {
      if (node.empty() || !plain_node_name(node)) {
        throw std::invalid_argument(fmt::format("{}--nodes: node name '{}' is not valid", of_kind, node));
      }
    }
    SlurmSubmitOptions o = options;
    o.kind = kind.kind;
    o.constraint = kind.constraint;
    o.nodes = kind.nodes;
    const std::string job = kind.kind.empty() ? base : base + "-" + kind.kind;
    for (std::size_t i = 0; i < kind.multi_node_runs.size(); ++i) {
      const auto& run = kind.multi_node_runs[i];
      const std::string nodes_given = kind.kind.empty() ? "--nodes" : "the kind's `nodes`";
      if (!o.nodes.empty() && run.nodes > o.nodes.size()) {
        throw std::invalid_argument(
            fmt::format("{}run {} trains on {} nodes (workload.distributed.nnodes) but {} gives {} node{} ({}); valid: "
                        "a list of at "
                        "least {} nodes, or none (Slurm picks the nodes)",
                        of_kind, run.run_id, run.nodes, nodes_given, o.nodes.size(), o.nodes.size() == 1 ? "" : "s",
                        fmt::join(o.nodes, ","), run.nodes));
      }
      if (o.node_count && run.nodes > *o.node_count) {
        throw std::invalid_argument(
            fmt::format("{}run {} trains on {} nodes (workload.distributed.nnodes) but --nodes {} lets the sweep use "
                        "at most {} at a time; valid: --nodes {} or more",
                        of_kind, run.run_id, run.nodes, *o.node_count, *o.node_count, run.nodes));
      }
      SlurmScript script;
      script.name = fmt::format("run-{}.sbatch", run.run_id);
      script.kind = kind.kind;
      script.run_id = run.run_id;
      script.run_nodes = run.nodes;
      if (!o.nodes.empty()) script.nodes = nodes_in_turn(o.nodes, i, run.nodes);
      script.text = multi_node_script(o, base + "-run-" + run.run_id, run, script.nodes);
      submission.worlds.push_back(std::move(script));
    }
    submission.runs += kind.run_count + kind.multi_node_runs.size();
    if (kind.run_count == 0) continue;
    const std::size_t chunks = (kind.run_count + o.runs_per_task - 1) / o.runs_per_task;
    submission.chunks += chunks;
    const std::string name = kind.kind.empty() ? std::string("array") : "array-" + kind.kind;
    if (o.nodes.empty()) {
      SlurmScript script;
      script.name = name + ".sbatch";
      script.kind = kind.kind;
      for (std::size_t c = 0; c < chunks; ++c) script.chunks.push_back(c);
      std::string array = fmt::format("0-{}", chunks - 1);
      if (o.node_count) array += fmt::format("%{}", *o.node_count);
      script.text = array_script(o, job, array, "");
      submission.arrays.push_back(std::move(script));
    } else {
      for (std::size_t n = 0; n < o.nodes.size() && n < chunks; ++n) {
        SlurmScript script;
        script.name = fmt::format("{}-{}.sbatch", name, o.nodes[n]);
        script.kind = kind.kind;
        script.node = o.nodes[n];
        for (std::size_t c = n; c < chunks; c += o.nodes.size()) script.chunks.push_back(c);
        script.text = array_script(o, job + "-" + o.nodes[n], index_list(script.chunks), o.nodes[n]);
        submission.arrays.push_back(std::move(script));
      }
    }
  }
  submission.merge = final_script(options, base);
  return submission;
}

}  // namespace jetchar::sweeps
