#include "experiments/results_merge.h"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "experiments/device_identity.h"
#include "experiments/results_location.h"
#include "experiments/results_store.h"

namespace jetchar::experiments {
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
  return sha256_text(blob);
}

std::string shown_device(const std::string& device_id) { return device_id.empty() ? "an unnamed board" : device_id; }

}  // namespace

MergeSummary merge_results(const fs::path& output, const std::vector<fs::path>& inputs) {
  if (inputs.empty()) throw std::invalid_argument("results merge: name at least one results directory to merge");
  // Every input must exist before the output is touched: a refused merge leaves no output behind.
  for (const auto& input : inputs) (void)ResultsLocation::from(input);
  const ResultsLocation out_location{output};
  fs::create_directories(output);
  ResultsStore out(out_location.store());
  const fs::path out_file = fs::weakly_canonical(out_location.store());

  std::map<RunKey, Held> held;
  for (const auto& result : out.load_all()) {
    const std::string& device = result.context().device_id();
    held[{result.sweep(), result.run_id(), device}] =
        Held{out_location.store().string(), digest_of(result),
             out.power_samples(result.sweep(), result.run_id(), device).size()};
  }

  MergeSummary summary;
  for (const auto& input : inputs) {
    const auto location = ResultsLocation::from(input);
    if (fs::weakly_canonical(location.store()) == out_file) {
      throw std::invalid_argument(fmt::format("results merge: input {} is the output store itself", input.string()));
    }
    const ResultsStore store(location.store(), ResultsStore::Access::kReadOnly);
    const std::string source = location.store().string();
    std::vector<proto::RunResult> added;
    std::vector<std::vector<StoredPowerSample>> added_samples;
    std::map<RunKey, Held> pending;
    for (auto& result : store.load_all()) {
      ++summary.runs_read;
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
              "results merge: run {} of sweep '{}' on {} differs between {} and {} ({}); nothing of {} was merged",
              std::get<1>(key), std::get<0>(key), shown_device(device), first.source, source,
              first.digest != candidate.digest
                  ? "different records"
                  : fmt::format("{} and {} power samples", first.samples, candidate.samples),
              source));
        }
        ++summary.duplicates;
        continue;
      }
      pending.emplace(key, std::move(candidate));
      added.push_back(std::move(result));
      added_samples.push_back(std::move(samples));
    }
    out.save_batch(added, added_samples);
    summary.runs_added += added.size();
    held.merge(pending);
    ++summary.inputs;
  }
  summary.runs_total = held.size();
  return summary;
}

}  // namespace jetchar::experiments
