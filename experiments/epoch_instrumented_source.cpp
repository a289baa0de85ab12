#include "experiments/epoch_instrumented_source.h"

#include "sysfs/page_cache.h"

namespace jetchar::experiments {

namespace energy = jetson::energy;

EpochInstrumentedSource::EpochInstrumentedSource(loaders::Pipeline& pipeline, proto::CachePolicy cache,
                                                 std::vector<std::filesystem::path> dataset_files,
                                                 energy::WindowRecorder* windows)
    : pipeline_(pipeline), cache_(cache), files_(std::move(dataset_files)), windows_(windows) {}

void EpochInstrumentedSource::close_epoch() {
  if (!open_) return;
  open_ = false;
  auto& epoch = epochs_.back();
  epoch.stats = pipeline_.epoch_stats();
  // Called through the trainer's on_epoch_end, right after it takes the epoch's E2E time (also
  // when it stops early at a bound), so the window ends with the E2E interval; reading the
  // epoch's sums and evaluating come after and belong to neither.
  if (windows_ != nullptr) windows_->end("epoch", std::nullopt, batches_, samples_);
}

void EpochInstrumentedSource::start_epoch(std::int64_t epoch) {
  close_epoch();
  // The page cache is prepared outside the epoch's window: it is not part of its time or energy.
  // Both operate on the host's real files, so they use the real root whatever board is simulated.
  if (cache_ == proto::DROP_BEFORE_FIRST_EPOCH && epoch == 0) {
    try {
      sysfs::drop_page_cache(sysfs::Root("/"));
    } catch (const std::exception& e) {
      notes_.push_back(std::string("page cache not dropped: ") + e.what());
    }
  } else if (cache_ == proto::EVICT_EVERY_EPOCH && !files_.empty()) {
    try {
      sysfs::evict_files(files_);
    } catch (const std::exception& e) {
      notes_.push_back(std::string("data set not evicted: ") + e.what());
    }
  }
  InstrumentedEpoch record;
  record.epoch = epoch;
  batches_ = samples_ = 0;
  pipeline_.start_epoch(epoch);
  // The window opens where the trainer's E2E clock starts: once the pipeline is started.
  if (windows_ != nullptr) record.window = windows_->begin("epoch", energy::WindowKind::kEpoch);
  epochs_.push_back(std::move(record));
  open_ = true;
}

std::optional<loaders::Batch> EpochInstrumentedSource::next() {
  auto batch = pipeline_.next();
  if (batch) {
    ++batches_;
    samples_ += static_cast<std::uint64_t>(batch->inputs.size(0));
  }
  return batch;
}

void EpochInstrumentedSource::finish() { close_epoch(); }

}  // namespace jetchar::experiments
