// `jetchar device modes|set|restore|snapshot`: nvpmodel presets, custom power modes (cores, CPU/
// GPU/EMC frequency, DVFS, fan), and bringing the board back — after a normal run, a signal, or a
// crash (the change journal in the state directory).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/exit_code.h"
#include "cli/option_checks.h"
#include "jetson/control/control_session.h"
#include "jetson/control/control_snapshot.h"
#include "jetson/control/nvpmodel_tool.h"
#include "jetson/control/power_mode.h"
#include "jetson/nvml/nvml_control.h"
#include "jetson/open_board.h"
#include "sysfs/change_journal.h"
#include "sysfs/error.h"
#include "sysfs/output_file.h"
#include "sysfs/root.h"

namespace {

namespace fs = std::filesystem;
using namespace jetchar;

struct BoardOptions {
  std::string board = "auto";
  std::string root;
  std::string state_dir;
};

// The board a command works on (this machine, a root, or a simulated board): jetson/discovery/board_handle.h.
using Board = jetson::BoardHandle;

Board open_board(const BoardOptions& options) {
  return jetson::open_board(options.board, options.root.empty() ? std::nullopt : std::optional<fs::path>(options.root),
                            options.state_dir.empty() ? std::nullopt : std::optional<fs::path>(options.state_dir));
}

// The state directory already warned about in this invocation (one warning per journal).
fs::path& warned_state_dir() {
  static fs::path dir;
  return dir;
}

void warn_pending(const Board& board) {
  if (board.state_dir == warned_state_dir()) return;
  if (const auto pending = sysfs::find_pending_journal(board.state_dir)) {
    warned_state_dir() = board.state_dir;
    std::fprintf(stderr,
                 "jetchar: warning: a change journal is pending (%zu attribute%s of the board under %s changed by "
                 "a kept `jetchar device set` or by a run that did not finish); `jetchar device restore --state-dir "
                 "%s` brings them back\n",
                 pending->entries.size(), pending->entries.size() == 1 ? "" : "s", pending->root_prefix.c_str(),
                 board.state_dir.c_str());
  }
}

void add_board_options(CLI::App* command, BoardOptions& options) {
  command->add_option("--board", options.board,
                      "auto (default), host, jetson, or sim:<fixture> (a simulated board expanded from a fixture "
                      "in share/jetchar/boards when installed, tests/fixtures/boards in the source tree; "
                      "with --root it lives in that directory and persists)");
  command->add_option("--root", options.root, "Directory that plays '/' (a board tree); default / (this machine)");
  command->add_option("--state-dir", options.state_dir,
                      "Where the change journal lives; default /var/lib/jetchar under the board's root");
}

std::string cap(const std::optional<std::optional<std::int64_t>>& value, std::int64_t units) {
  if (!value) return "-";
  if (!*value) return "no cap";
  return jetson::format_mhz(**value, units);
}

// ---- modes ------------------------------------------------------------------------------------

void run_modes(const BoardOptions& options) {
  Board board = open_board(options);
  warn_pending(board);
  const auto controls = jetson::discover_device_controls(*board.root);
  std::string out = fmt::format("board: {}\n", board.label);
  if (!controls.nvpmodel) {
    out += "nvpmodel: no /etc/nvpmodel.conf on this board; only custom modes (jetchar device set --cpu-cores ...)\n";
    std::fputs(out.c_str(), stdout);
    return;
  }
  const auto& config = *controls.nvpmodel;
  const auto current = jetson::current_nvpmodel_mode(*board.root);
  out += fmt::format("nvpmodel configuration: {}\n", config.source);
  out += fmt::format("current mode: {}\n", current && current->id
                                               ? fmt::format("{} (from {})", *current->id, current->source)
                                               : std::string("unknown"));
  out += fmt::format("{:>3}  {:<18} {:>5}  {:<24} {:>13} {:>13}  {}\n", "ID", "NAME", "CORES", "CPU MAX (MHz)",
                     "GPU MAX (MHz)", "EMC MAX (MHz)", "TPC MASK");
  for (const auto& mode : config.modes) {
    const auto summary = jetson::summarize(mode);
    std::string cpu;
    for (const auto& [param, value] : summary.cpu_max_khz) {
      const std::string one = value ? jetson::format_mhz(*value, 1000) : "no cap";
      if (cpu.find(one) == std::string::npos || cpu.empty()) cpu += (cpu.empty() ? "" : "/") + one;
    }
    std::string name = mode.name;
    if (mode.id == config.default_mode) name += " (default)";
    if (current && current->id == mode.id) name += " *";
    out += fmt::format("{:>3}  {:<18} {:>5}  {:<24} {:>13} {:>13}  {}\n", mode.id, name,
                       summary.online_cores.empty() ? std::string("-") : std::to_string(summary.online_cores.size()),
                       cpu.empty() ? "-" : cpu, cap(summary.gpu_max_hz, 1000000), cap(summary.emc_max_hz, 1000000),
                       summary.tpc_pg_mask.value_or("-"));
  }
  out += "(* = current; switching to a mode with another TPC mask needs a reboot: --allow-reboot)\n";
  std::fputs(out.c_str(), stdout);
}

// ---- set --------------------------------------------------------------------------------------

struct SetOptions {
  BoardOptions board;
  std::optional<std::string> mode;  ///< an nvpmodel mode id or NAME
  std::optional<int> cpu_cores;
  std::optional<std::string> cpu_freq, gpu_freq, emc_freq, dvfs, fan, railgate;
  std::vector<std::string> cluster_freq;  ///< "policy4=1497.6"
  bool snap = false;
  bool allow_reboot = false;
  bool disable_idle = false;
  std::optional<double> hold_s;
  // A GPU through NVML (jetson/nvml/nvml_control.h).
  unsigned int nvml_gpu = 0;
  std::optional<double> gpu_power_limit_w;
  std::optional<std::string> gpu_locked_clocks, memory_locked_clocks;
  bool nvml_requested() const { return gpu_power_limit_w || gpu_locked_clocks || memory_locked_clocks; }
};

// --mode takes an id or a NAME of the board's conf; without a conf, plan_nvpmodel_mode says so.
int nvpmodel_mode_id(const jetson::ControlSession& session, const std::string& id_or_name) {
  if (session.controls().nvpmodel) return session.controls().nvpmodel->mode(std::string_view(id_or_name)).id;
  return 0;
}

std::string describe_result(const jetson::PowerModePlan& plan, const jetson::ApplyResult& result) {
  std::string out =
      fmt::format("applied: {} ({} write{}", plan.description, result.writes, result.writes == 1 ? "" : "s");
  if (!result.settle.outcomes.empty()) out += fmt::format(", settled in {} ms", result.settle.waited.count());
  out += ")\n";
  for (const auto& outcome : result.settle.outcomes) {
    if (!outcome.last_value) continue;
    const std::int64_t units = outcome.path.find("cpufreq") != std::string::npos ? 1000 : 1000000;
    const std::string now = jetson::format_mhz(*outcome.last_value, units);
    // A clock left to its governor (DVFS on) reads wherever the governor put it, often far below
    // the frequency just applied: say so instead of printing a number that seems to contradict it.
    const auto target = std::find_if(plan.settle.begin(), plan.settle.end(),
                                     [&](const jetson::SettleTarget& t) { return t.path == outcome.path; });
    if (!outcome.pinned && target != plan.settle.end() && target->min != target->max) {
      out += fmt::format("  {}: {} MHz now; DVFS is on: the governor moves it between {} and {} MHz with the load\n",
                         outcome.what, now, jetson::format_mhz(target->min, units),
                         jetson::format_mhz(target->max, units));
      continue;
    }
    out += fmt::format("  {}: {} MHz{}\n", outcome.what, now, outcome.settled ? "" : " (not settled)");
  }
  for (const auto& note : result.notes) out += fmt::format("  note: {}\n", note);
  return out;
}

// The custom mode the options describe; --mode and custom settings exclude each other, and one
// of them (or an NVML knob) is needed.
jetson::CustomPowerMode custom_mode(const SetOptions& options) {
  jetson::CustomPowerMode custom;
  custom.cpu_cores = options.cpu_cores;
  custom.cpu_freq_mhz = options.cpu_freq;
  for (const auto& item : options.cluster_freq) {
    const size_t equals = item.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == item.size()) {
      throw std::invalid_argument(fmt::format("--cluster-freq '{}' is not POLICY=MHz (e.g. policy4=1497.6)", item));
    }
    custom.cluster_freq_mhz[item.substr(0, equals)] = item.substr(equals + 1);
  }
  custom.gpu_freq_mhz = options.gpu_freq;
  custom.emc_freq_mhz = options.emc_freq;
  custom.disable_cpu_idle = options.disable_idle;
  if (options.dvfs) custom.dvfs = *options.dvfs == "on" ? jetson::DvfsSetting::kOn : jetson::DvfsSetting::kOff;
  if (options.fan) custom.fan = *options.fan == "max" ? jetson::FanSetting::kMax : jetson::FanSetting::kDefault;
  if (options.railgate) custom.gpu_railgate = *options.railgate == "on";
  if (options.mode && !custom.empty()) {
    throw cli::UsageError("--mode applies an nvpmodel preset; it cannot be combined with custom settings");
  }
  if (!options.mode && custom.empty() && !options.nvml_requested()) {
    throw cli::UsageError(
        "nothing to set: give --mode ID|NAME, custom settings (--cpu-cores, --cpu-freq, ...) or NVML knobs "
        "(--gpu-power-limit-w, --gpu-locked-clocks, --memory-locked-clocks)");
  }
  return custom;
}

// NVML's knobs, checked against the GPU before anything is written.
struct NvmlPlan {
  std::shared_ptr<jetson::NvmlLibrary> library;  ///< null without NVML knobs
  std::vector<jetson::NvmlWrite> writes;
};

NvmlPlan plan_nvml(const SetOptions& options, const Board& board) {
  NvmlPlan plan;
  if (!options.nvml_requested()) return plan;
  if (!board.hooks->is_this_machine(*board.root)) {
    throw std::invalid_argument(
        fmt::format("NVML knobs act on this machine's GPUs; board {} is not this machine", board.label));
  }
  auto opened = jetson::NvmlLibrary::open();
  if (!opened.library) throw std::runtime_error("NVML knobs: " + opened.absent.value_or("NVML is absent"));
  plan.library = std::move(opened.library);
  jetson::NvmlSettings settings;
  settings.gpu_index = options.nvml_gpu;
  settings.power_limit_w = options.gpu_power_limit_w;
  if (options.gpu_locked_clocks) {
    settings.gpu_locked_clocks_mhz = jetson::parse_clock_range(*options.gpu_locked_clocks, "--gpu-locked-clocks");
  }
  if (options.memory_locked_clocks) {
    settings.memory_locked_clocks_mhz =
        jetson::parse_clock_range(*options.memory_locked_clocks, "--memory-locked-clocks");
  }
  plan.writes = jetson::plan_nvml_writes(*plan.library, settings);
  return plan;
}

// Applies the preset or the custom mode, then the NVML knobs; returns what was applied.
std::string apply_settings(const SetOptions& options, const Board& board, const jetson::CustomPowerMode& custom,
                           const NvmlPlan& nvml, jetson::ControlSession& session) {
  std::string out;
  try {
    if (options.mode || !custom.empty()) {
      const jetson::PowerModePlan plan =
          options.mode
              ? jetson::plan_nvpmodel_mode(*board.root, session.controls(), nvpmodel_mode_id(session, *options.mode),
                                           options.allow_reboot)
              : jetson::plan_custom_mode(*board.root, session.controls(), custom, options.snap, &session.journal());
      jetson::ApplyOptions apply;
      apply.use_nvpmodel_program =
          options.mode && board.hooks->runs_nvpmodel_program() && jetson::nvpmodel_available(*board.root);
      apply.confirm_reboot = options.allow_reboot;
      const auto result = session.apply(plan, apply);
      out += describe_result(plan, result);
    }
    if (nvml.library) jetson::apply_nvml_writes(*nvml.library, session.journal(), nvml.writes);
    for (const auto& write : nvml.writes) out += fmt::format("applied: {} (NVML, journalled)\n", write.description);
  } catch (const jetson::Interrupted& e) {
    throw cli::CommandExit(cli::kInterrupted,
                           fmt::format("interrupted (signal {}) while applying; the board was restored", e.signal()));
  }
  return out;
}

// --hold: prints `out`, waits `hold_s` seconds (0: until a signal), restores the board and says so.
void hold_then_restore(jetson::ControlSession& session, double hold_s, std::string out) {
  out += hold_s > 0 ? fmt::format("holding for {} s (SIGINT/SIGTERM ends it early), then restoring\n", hold_s)
                    : "holding until SIGINT/SIGTERM, then restoring\n";
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(hold_s);
  while (session.interrupt().signal() == 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (hold_s > 0 && left.count() <= 0) break;
    if (hold_s <= 0) left = std::chrono::milliseconds(1000);
    session.interrupt().wait(std::min(left, std::chrono::milliseconds(1000)));
  }
  const std::size_t restored = session.restore();
  std::fputs(fmt::format("restored {} attribute{}\n", restored, restored == 1 ? "" : "s").c_str(), stdout);
  if (session.interrupt().signal() != 0) {
    std::fflush(stdout);
    throw cli::CommandExit(cli::kInterrupted,
                           fmt::format("stopped by signal {}; the board was restored", session.interrupt().signal()));
  }
}

void run_set(const SetOptions& options) {
  Board board = open_board(options.board);
  warn_pending(board);
  const jetson::CustomPowerMode custom = custom_mode(options);
  const NvmlPlan nvml = plan_nvml(options, board);

  jetson::ControlSession session(*board.root, board.state_dir, board.after_write());
  std::string out = fmt::format("board: {}\n", board.label);
  out += apply_settings(options, board, custom, nvml, session);
  out += board.hooks->state_text();
  if (options.hold_s) {
    hold_then_restore(session, *options.hold_s, std::move(out));
    return;
  }
  if (board.temporary) {
    out += "the simulated board is temporary: restored at exit (use --root DIR to keep it, or --hold)\n";
  } else {
    session.keep();
    out += fmt::format("kept; bring the board back with: jetchar device restore{}{}{}\n",
                       options.board.board == "auto" ? "" : " --board " + options.board.board,
                       options.board.root.empty() ? "" : " --root " + options.board.root,
                       options.board.state_dir.empty() ? "" : " --state-dir " + options.board.state_dir);
  }
  std::fputs(out.c_str(), stdout);
}

// ---- restore / snapshot ---------------------------------------------------------------------

// `device restore` of a journal that cannot be read: the board comes back from its session's
// snapshot, and the status is a failure naming the damaged record.
[[noreturn]] void restore_after_damage(Board& board, const sysfs::FormatError& damage, std::string out) {
  sysfs::DamagedJournalRestore restored;
  try {
    restored = sysfs::restore_from_snapshot(*board.root, board.state_dir);
  } catch (const std::exception& e) {
    std::fputs(out.c_str(), stdout);
    std::fflush(stdout);
    throw cli::CommandExit(cli::kFailure, fmt::format("error: {}; the journal is kept: {}", damage.what(), e.what()));
  }
  board.hooks->after_write();
  for (const std::string& path : restored.rewritten) out += fmt::format("wrote back {} from the snapshot\n", path);
  out +=
      fmt::format("restored {} control(s) from the snapshot {} taken before the session; all {} read back as in it\n",
                  restored.rewritten.size(), restored.snapshot.string(), restored.controls);
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
  throw cli::CommandExit(cli::kFailure, fmt::format("error: {}; the board was restored from the snapshot instead, "
                                                    "and the damaged journal is kept as {}",
                                                    damage.what(), restored.kept_journal.string()));
}

void run_restore(const BoardOptions& options, const std::string& file) {
  // The journal may hold NVML's knobs (nvml:<uuid>/...): they are restored through NVML.
  jetson::register_nvml_controls();
  Board board = open_board(options);
  std::string out = fmt::format("board: {}\n", board.label);
  if (!file.empty()) {
    const auto snapshot = sysfs::read_journal(file);
    if (snapshot.root_prefix != board.root->prefix()) {
      throw std::invalid_argument(fmt::format("snapshot {} was taken of the board under '{}', not '{}' (pass --root)",
                                              file, snapshot.root_prefix.string(), board.root->prefix().string()));
    }
    if (sysfs::find_pending_journal(board.state_dir)) {
      throw std::invalid_argument(
          fmt::format("a change journal is pending in {}; run `jetchar device restore` without a file first",
                      board.state_dir.string()));
    }
    const std::size_t count = sysfs::restore_entries(*board.root, snapshot.entries, file);
    board.hooks->after_write();
    out += fmt::format("restored {} attributes from snapshot {}\n", count, file);
    std::fputs(out.c_str(), stdout);
    return;
  }
  const fs::path file_path = sysfs::journal_file(board.state_dir);
  if (!fs::exists(file_path)) {
    // A snapshot without a journal is of a session killed before its first write: nothing changed.
    std::error_code ignored;
    fs::remove(sysfs::snapshot_file(board.state_dir), ignored);
    out += fmt::format("nothing to restore: no change journal in {}\n", board.state_dir.string());
    std::fputs(out.c_str(), stdout);
    return;
  }
  // Not under a live session: refused naming it (the session restores the board itself).
  const sysfs::WriterLock writer = jetson::lock_board(board.state_dir);
  // The journal names the board it changed; restore that one. A damaged journal cannot say what
  // it changed: the snapshot its session took before the first write says what the board was.
  sysfs::JournalContents contents;
  try {
    contents = sysfs::read_journal(file_path);
  } catch (const sysfs::FormatError& damage) {
    restore_after_damage(board, damage, std::move(out));
    return;
  }
  const bool same_root = contents.root_prefix.empty() || contents.root_prefix == board.root->prefix();
  if (!same_root && (!options.root.empty() || options.board != "auto")) {
    throw std::invalid_argument(fmt::format("the change journal in {} holds changes to the board under '{}', not '{}'",
                                            board.state_dir.string(), contents.root_prefix.string(),
                                            board.root->prefix().string()));
  }
  std::unique_ptr<sysfs::Root> other;
  if (!same_root) {
    other = std::make_unique<sysfs::Root>(contents.root_prefix);
    out = fmt::format("board: root {}\n", contents.root_prefix.string());
  }
  sysfs::ChangeJournal journal(same_root ? *board.root : *other, board.state_dir);
  const std::size_t count = journal.restore();
  if (same_root) {
    board.hooks->after_write();
  } else {
    jetson::open_board("auto", contents.root_prefix).hooks->after_write();
  }
  out += fmt::format(
      "restored {} attribute{} from the change journal{}\n", count, count == 1 ? "" : "s",
      contents.torn_tail ? " (its last record was torn by the crash and was dropped: that write never began)" : "");
  for (const std::string& path : journal.reset_by_reboot()) {
    out += fmt::format("left {} alone: it was journalled before the last reboot, which reset it\n", path);
  }
  const auto& repaired = journal.repaired_from_snapshot();
  for (const std::string& path : repaired) {
    out += fmt::format("{} still differed from the snapshot taken before the session: written back from it\n", path);
  }
  std::fputs(out.c_str(), stdout);
  // A journal cut short by more than one torn append lost records: the board is back (from the
  // snapshot), but the journal was damaged, and the status says so.
  if (contents.torn_tail && !repaired.empty()) {
    std::fflush(stdout);
    throw cli::CommandExit(
        cli::kFailure,
        fmt::format("error: the change journal {} was cut short and lacked the records of {} control(s); every "
                    "control now reads back as in the snapshot taken before the session",
                    file_path.string(), repaired.size()));
  }
}

void run_snapshot(const BoardOptions& options, const std::string& output) {
  Board board = open_board(options);
  // A snapshot names the root it was taken of; a temporary simulated board's root is deleted when
  // this command ends, so its snapshot could never be restored.
  if (board.temporary) {
    throw cli::UsageError(fmt::format(
        "{} is a temporary simulated board, gone when this command ends: its snapshot could not be restored; "
        "keep the board in a directory with --root DIR (jetchar device snapshot --board {} --root DIR)",
        options.board, options.board));
  }
  warn_pending(board);
  const auto snapshot = jetson::snapshot_controls(*board.root);
  for (const auto& reason : snapshot.left_out)
    std::fprintf(stderr, "jetchar: warning: not in the snapshot: %s\n", reason.c_str());
  const auto& readable = snapshot.entries;
  if (output.empty() || output == "-") {
    const std::string content = sysfs::journal_text(board.root->prefix(), readable);
    std::fwrite(content.data(), 1, content.size(), stdout);
    return;
  }
  // Never over the board's own journal or its session's snapshot.
  sysfs::refuse_output_onto(output, std::vector<fs::path>{board.state_dir}, "-o");
  sysfs::write_journal_file(output, board.root->prefix(), readable);
  std::printf("board: %s\nsnapshot of %zu controls written to %s\n", board.label.c_str(), readable.size(),
              output.c_str());
}

void add_device_control_commands(CLI::App& app) {
  CLI::App& device = cli::command_group(app, "device", "Inspect and control the board");
  // Every jetchar invocation warns when a crashed (or kept) run left the host board changed.
  try {
    Board host;
    host.root = std::make_unique<sysfs::Root>("/");
    host.state_dir = "/var/lib/jetchar";
    warn_pending(host);
  } catch (const std::exception&) {
    // An unreadable or damaged journal is reported by `jetchar device restore`, not at start-up.
  }

  auto modes_options = std::make_shared<BoardOptions>();
  CLI::App* modes = device.add_subcommand("modes", "List the board's nvpmodel power modes with their caps");
  add_board_options(modes, *modes_options);
  jetchar::cli::add_examples(*modes,
                             "Example:\n"
                             "  jetchar device modes --board sim:agx-orin-r36");
  modes->callback([modes_options] { run_modes(*modes_options); });

  auto set_options = std::make_shared<SetOptions>();
  CLI::App* set = device.add_subcommand(
      "set",
      "Apply an nvpmodel preset (--mode) or a custom power mode. Every write is journalled first; on error or "
      "SIGINT/SIGTERM the board is restored. Frequencies are MHz as the board lists them (e.g. 1420.8).");
  add_board_options(set, set_options->board);
  set->add_option("--mode", set_options->mode,
                  "nvpmodel power mode id or name, e.g. 2 or MAXN_SUPER (see `jetchar device modes`)");
  set->add_option("--cpu-cores", set_options->cpu_cores, "Online CPU cores: CPU0..N-1 (CPU0 never goes offline)")
      ->check(cli::between(1, 4096, "cores"));
  set->add_option("--cpu-freq", set_options->cpu_freq, "CPU frequency in MHz for every cluster");
  set->add_option("--cluster-freq", set_options->cluster_freq,
                  "CPU frequency of one cluster, POLICY=MHz (e.g. policy4=1497.6; repeatable; overrides --cpu-freq)");
  set->add_option("--gpu-freq", set_options->gpu_freq, "GPU frequency in MHz");
  set->add_option("--emc-freq", set_options->emc_freq, "EMC (memory) frequency in MHz");
  set->add_option("--dvfs", set_options->dvfs,
                  "on: the board's governors scale up to the set frequency; off: min = max (as jetson_clocks)")
      ->check(CLI::IsMember({"on", "off"}));
  set->add_option("--fan", set_options->fan, "max: full speed; default: leave the fan to the board")
      ->check(CLI::IsMember({"max", "default"}));
  set->add_option("--gpu-railgate", set_options->railgate, "on/off: let the GPU power-gate when idle")
      ->check(CLI::IsMember({"on", "off"}));
  set->add_flag("--disable-cpu-idle", set_options->disable_idle, "Disable every CPU idle state (as jetson_clocks)");
  set->add_flag("--snap", set_options->snap, "Use the nearest available frequency instead of failing");
  set->add_flag("--allow-reboot", set_options->allow_reboot,
                "Allow a mode whose GPU TPC mask differs (nvpmodel then reboots a real board)");
  set->add_option("--hold", set_options->hold_s,
                  "Keep the mode for SECONDS (0: until SIGINT/SIGTERM), then restore; without it a change on a "
                  "real or --root board stays until `jetchar device restore`")
      ->check(cli::duration_seconds("seconds, 0 = until SIGINT/SIGTERM"));
  set->add_option("--gpu-power-limit-w", set_options->gpu_power_limit_w,
                  "NVML: power limit of the GPU in W (desktop/datacenter GPUs; within the range `jetchar device "
                  "info` shows; needs root)")
      ->check(cli::at_least(0, "W"));
  set->add_option("--gpu-locked-clocks", set_options->gpu_locked_clocks,
                  "NVML: lock the GPU's graphics clock to MIN,MAX MHz (needs root; restored to unlocked)");
  set->add_option("--memory-locked-clocks", set_options->memory_locked_clocks,
                  "NVML: lock the GPU's memory clock to MIN,MAX MHz (needs root; restored to unlocked)");
  set->add_option("--nvml-gpu", set_options->nvml_gpu, "NVML index of the GPU the NVML knobs act on (default 0)");
  jetchar::cli::add_examples(
      *set,
      "Examples (a simulated board kept in the folder ./board):\n"
      "  jetchar device set --board sim:agx-orin-r36 --root board --cpu-cores 4 --gpu-freq 612 --dvfs off\n"
      "  jetchar device restore --board sim:agx-orin-r36 --root board\n"
      "  jetchar device set --board sim:orin-nano-r36 --mode MAXN_SUPER --hold 1");
  set->callback([set_options] { run_set(*set_options); });

  auto restore_options = std::make_shared<BoardOptions>();
  auto restore_file = std::make_shared<std::string>();
  CLI::App* restore = device.add_subcommand(
      "restore",
      "Bring the board back: from the pending change journal (after a crash, or a kept `device set`), "
      "or from a snapshot FILE");
  add_board_options(restore, *restore_options);
  restore->add_option("FILE", *restore_file, "A snapshot written by `jetchar device snapshot -o FILE`");
  restore->callback([restore_options, restore_file] { run_restore(*restore_options, *restore_file); });

  auto snapshot_options = std::make_shared<BoardOptions>();
  auto snapshot_file = std::make_shared<std::string>();
  CLI::App* snapshot = device.add_subcommand(
      "snapshot",
      "Record every control of the board (cores, cpufreq, GPU devfreq, EMC cap/lock/rate, fan, nvpmodel "
      "attributes and, on this host, each NVML GPU's power limit) for `jetchar device restore FILE`");
  add_board_options(snapshot, *snapshot_options);
  snapshot->add_option("-o,--output", *snapshot_file, "File to write (default: standard output)");
  jetchar::cli::add_examples(*snapshot,
                             "Examples (a simulated board kept in the folder ./board):\n"
                             "  jetchar device snapshot --board sim:agx-orin-r36 --root board -o before.snapshot\n"
                             "  jetchar device set --board sim:agx-orin-r36 --root board --cpu-cores 2\n"
                             "  jetchar device restore --board sim:agx-orin-r36 --root board\n"
                             "  jetchar device restore --board sim:agx-orin-r36 --root board before.snapshot\n"
                             "(a pending change journal is restored first: `restore FILE` refuses while one exists)");
  snapshot->callback([snapshot_options, snapshot_file] { run_snapshot(*snapshot_options, *snapshot_file); });
}

}  // namespace

JETCHAR_REGISTER_COMMAND(11, add_device_control_commands);
