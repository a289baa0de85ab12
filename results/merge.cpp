#include "results/merge.h"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <map>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "jetson/discovery/device_identity.h"
#include "results/location.h"
#include "results/mode_predictions_store.h"
#include "results/store.h"
#include "sysfs/writer_lock.h"

namespace jetchar::results {
namespace {

namespace fs = std::filesystem;

// A run of a fleet: (sweep, run_id, board). The same run id measured on two boards is two runs.
using RunKey = std::tuple<std::string, std::string, std::string>;

struct Held {
  std::string source;  ///< the store the record came from
  std::string digest;  ///< SHA-256 of the record serialized deterministically (memory: a digest per run)
  std::size_t samples = 0;
};

std::string digest_of(const proto::RunResult& result) {
  std::string blob;
  {
    google::protobuf::io::StringOutputStream stream(&blob);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    result.SerializeToCodedStream(&coded);
  }
  return jetson::sha256_text(blob);
}

std::string shown_device(const std::string& device_id) { return device_id.empty() ? "an unnamed board" : device_id; }

// What a merge would write: the runs and sweeps' predictions new to the output, found with every
// conflict checked.
struct MergePlan {
  std::vector<proto::RunResult> added;
  std::vector<std::vector<StoredPowerSample>> added_samples;
  std::map<std::string, SweepPredictions> added_predictions;
  MergeSummary summary;
};

// One sweep's predictions as a merge meets them: where they come from and what they are.
struct HeldPredictions {
  std::string source;
  SweepPredictions stored;
};

// Takes `store`'s sweeps' predictions into `held` (and the plan, when `plan` is given: an input's);
// the same sweep's predictions met again must be the same.
void hold_predictions(const fs::path& store, std::map<std::string, HeldPredictions>& held, MergePlan* plan) {
  for (auto& [sweep, stored] : load_all_mode_predictions(store)) {
    const auto earlier = held.find(sweep);
    if (earlier == held.end()) {
      if (plan != nullptr) plan->added_predictions[sweep] = stored;
      held.emplace(sweep, HeldPredictions{store.string(), std::move(stored)});
    } else if (!(earlier->second.stored == stored)) {
      throw std::invalid_argument(
          fmt::format("results merge: the mode predictions of sweep '{}' differ between {} and {}; nothing was merged",
                      sweep, earlier->second.source, store.string()));
    }
  }
}

MergePlan plan_merge(const ResultsLocation& out_location, const std::vector<fs::path>& inputs,
                     const MergeOptions& options) {
  std::map<RunKey, Held> held;
  std::map<std::string, HeldPredictions> held_predictions;
  std::error_code ec;
  const bool output_exists = fs::exists(out_location.store(), ec);
  if (output_exists) {
    // Read-write, under the output's lock (a new folder has no store to read before it): a store
    // that a killed merge or sweep left empty, or without its schema, is made whole instead of
    // refused, and a database of another program is refused without a write.
    const ResultsStore out(out_location.store());
    std::size_t runs = 0;
    for (const auto& result : out.load_all()) {
      const std::string& device = result.context().device_id();
      held[{result.sweep(), result.run_id(), device}] =
          Held{out_location.store().string(), digest_of(result),
               out.power_samples(result.sweep(), result.run_id(), device).size()};
      ++runs;
    }
    hold_predictions(out_location.store(), held_predictions, nullptr);
    if (options.progress) options.progress({MergeProgress::Stage::kOutputRead, out_location.store(), runs});
  }
  MergePlan plan;
  MergeSummary& summary = plan.summary;
  for (const auto& input : inputs) {
    if (options.stop_requested && options.stop_requested()) throw MergeStopped("results merge stopped by a signal");
    const auto location = ResultsLocation::from(input);
    const ResultsStore store(location.store(), ResultsStore::Access::kReadOnly);
    const std::string source = location.store().string();
    std::size_t runs = 0;
    for (auto& result : store.load_all()) {
      ++summary.runs_read;
      ++runs;
      const std::string& device = result.context().device_id();
      const RunKey key{result.sweep(), result.run_id(), device};
      auto samples = store.power_samples(result.sweep(), result.run_id(), device);
      Held candidate{source, digest_of(result), samples.size()};
      // Met before: in the output or in an earlier input (one store holds a key once).
      const auto earlier = held.find(key);
      if (earlier != held.end()) {
        const Held& first = earlier->second;
        if (first.digest != candidate.digest || first.samples != candidate.samples) {
          throw std::invalid_argument(fmt::format(
              "results merge: run {} of sweep '{}' on {} differs between {} and {} ({}); nothing was merged",
              std::get<1>(key), std::get<0>(key), shown_device(device), first.source, source,
              first.digest != candidate.digest
                  ? "different records"
                  : fmt::format("{} and {} power samples", first.samples, candidate.samples)));
        }
        ++summary.duplicates;
        continue;
      }
      held.emplace(key, std::move(candidate));
      plan.added.push_back(std::move(result));
      plan.added_samples.push_back(std::move(samples));
    }
    hold_predictions(location.store(), held_predictions, &plan);
    if (options.progress) options.progress({MergeProgress::Stage::kInputRead, location.store(), runs});
    ++summary.inputs;
  }
  summary.runs_added = plan.added.size();
  summary.runs_total = held.size();
  summary.predictions_added = plan.added_predictions.size();
  return plan;
}

}  // namespace

MergeSummary merge_results(const fs::path& output, const std::vector<fs::path>& inputs, const MergeOptions& options) {
  if (inputs.empty()) throw std::invalid_argument("results merge: name at least one results directory to merge");
  const ResultsLocation out_location{output};
  // Every input must be a store, and none the output, before the output is touched.
  std::error_code ec;
  for (const auto& input : inputs) {
    const auto location = ResultsLocation::from(input);
    if (fs::exists(out_location.store(), ec) && fs::equivalent(location.store(), out_location.store(), ec)) {
      throw std::invalid_argument(fmt::format("results merge: input {} is the output store itself", input.string()));
    }
  }
  const auto wait = options.wait_for_writer ? sysfs::WriterLock::Wait::kYes : sysfs::WriterLock::Wait::kNo;
  const std::string what = fmt::format("results directory {}", output.string());
  const bool new_folder = !fs::is_directory(output, ec);
  std::optional<MergePlan> new_folder_plan;
  // Whether this merge made the output folder: another merge of the same new folder may make it
  // first, and that folder is then the other's to keep.
  bool created = false;
  if (new_folder) {
    // A new output folder exists only once its merge is sure to write: planned first, then created.
    new_folder_plan = plan_merge(out_location, inputs, options);
    created = fs::create_directories(output);
  }
  // A lock held by another writer (LockHeld, or a stop while waiting for it) leaves the folder to
  // that writer, even one this merge created: it may be writing there already. A lock file that
  // cannot be made (a full disk) leaves no one there: the folder this merge created goes again.
  const auto stopped = [&options] { return options.stop_requested && options.stop_requested(); };
  std::optional<sysfs::WriterLock> lock;
  try {
    lock.emplace(out_location.lock(), what, wait, stopped);
  } catch (const sysfs::WaitStopped&) {
    throw MergeStopped("results merge stopped by a signal while it waited for the output's writer");
  } catch (const sysfs::LockHeld&) {
    throw;
  } catch (...) {
    if (created) fs::remove_all(output, ec);
    throw;
  }
  try {
    // Planned again under the lock when another writer may have changed the output meanwhile. A
    // new folder's first plan stands while the folder still holds no store: that plan saw none
    // either, and reading every input twice made a merge into a new folder take twice as long.
    MergePlan plan = new_folder_plan && !fs::exists(out_location.store(), ec)
                         ? std::move(*new_folder_plan)
                         : plan_merge(out_location, inputs, options);
    if (options.stop_requested && options.stop_requested()) throw MergeStopped("results merge stopped by a signal");
    if (options.progress) options.progress({MergeProgress::Stage::kWriting, out_location.store(), plan.added.size()});
    ResultsStore out(out_location.store());
    out.save_batch(plan.added, plan.added_samples, plan.added_predictions);
    return plan.summary;
  } catch (...) {
    // Nothing was written: a folder this merge created goes again, lock file and all, while the
    // lock is still held so that no other writer has begun in it.
    if (created) fs::remove_all(output, ec);
    throw;
  }
}

}  // namespace jetchar::results
