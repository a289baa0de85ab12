// Wraps the data pipeline for a characterization run: applies the cache policy before epochs
// (drop the page cache once before epoch 0, or evict the data set before every epoch), opens an
// "epoch" measurement window at each start_epoch and closes it when the trainer has taken its
// last batch, and keeps the pipeline's statistics of every epoch (stall, residency, disk I/O).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "jetson/energy/measurement_windows.h"
#include "loaders/batch.h"
#include "loaders/epoch_stats.h"
#include "loaders/pipeline.h"
#include "proto/experiment_spec.pb.h"

namespace jetchar::experiments {

struct InstrumentedEpoch {
  std::int64_t epoch = 0;
  std::size_t window = 0;  ///< index in the WindowRecorder
  loaders::EpochStats stats;
};

class EpochInstrumentedSource : public loaders::BatchSource {
 public:
  /// `windows` may be null (no power session). The cache policy acts on `dataset_files`.
  EpochInstrumentedSource(loaders::Pipeline& pipeline, proto::CachePolicy cache,
                          std::vector<std::filesystem::path> dataset_files, jetson::energy::WindowRecorder* windows);

  void start_epoch(std::int64_t epoch) override;
  std::optional<loaders::Batch> next() override;
  std::int64_t batches_per_epoch() const override { return pipeline_.batches_per_epoch(); }
  std::int64_t samples_per_epoch() const override { return pipeline_.samples_per_epoch(); }

  /// Closes the current epoch's window (TrainingConfig::on_epoch_end: when its E2E time is taken).
  void end_epoch() { close_epoch(); }
  /// Closes the last epoch's window if it is still open; call once training has returned.
  void finish();
  const std::vector<InstrumentedEpoch>& epochs() const { return epochs_; }
  /// Problems applying the cache policy (e.g. drop_caches without root), for the run's reason.
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  void close_epoch();

  loaders::Pipeline& pipeline_;
  proto::CachePolicy cache_;
  std::vector<std::filesystem::path> files_;
  jetson::energy::WindowRecorder* windows_;
  std::vector<InstrumentedEpoch> epochs_;
  std::vector<std::string> notes_;
  bool open_ = false;
  std::uint64_t batches_ = 0;
  std::uint64_t samples_ = 0;
};

}  // namespace jetchar::experiments
