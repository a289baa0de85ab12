// The random-access sample source every reader implements (images, tokens, synthetic). The
// pipeline (loaders/pipeline.h) asks it for sample `index` and hands it a slice of a preallocated,
// batch-contiguous buffer to write into, so the hot path allocates nothing per sample.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "loaders/rng.h"

namespace jetchar::loaders {

/// Element type of a sample's input (what the model consumes).
enum class InputType { kFloat32, kInt64 };

/// The per-sample shapes; a batch of B samples has shape [B, ...] for each part.
struct SampleLayout {
  InputType input_type = InputType::kFloat32;
  /// Images: {C, H, W}; token tasks: {L}.
  std::vector<std::int64_t> input_shape;
  /// {} (a class index), {L} (one class per token, -100 = ignored) or {2} (answer start, end).
  std::vector<std::int64_t> target_shape;
  /// Targets that are token ids of a vocabulary of this size rather than classes (masked-LM
  /// pretraining: one per position, -100 where not masked); 0 otherwise.
  std::int64_t target_vocab_size = 0;
  /// Token tasks: attention mask (1 = real token) and segment ids, both shaped as the input.
  bool has_attention_mask = false;
  bool has_token_type_ids = false;

  std::int64_t input_elements() const;
  std::int64_t target_elements() const;
};

/// What a data set is, for reports, residency and eviction.
struct DatasetInfo {
  std::string name;                  ///< e.g. "fashion-mnist/train"
  std::string format;                ///< e.g. "idx", "idx.gz", "cifar10-bin", "imagefolder", "gld23k", "synthetic"
  std::filesystem::path root;        ///< the path the data set was opened from (empty for synthetic)
  std::vector<std::string> classes;  ///< class names by class id; empty where targets are not classes
  SampleLayout layout;
  /// Every file the samples are read from (for page-cache residency, eviction, the block device).
  std::vector<std::filesystem::path> files;
  std::uint64_t bytes = 0;  ///< total size of `files`
  /// What the reader changed in the samples that a result must say (sentences cut to the
  /// sequence length), one sentence each; empty when nothing was.
  std::vector<std::string> notes;
};

/// Where get() writes one sample: slices of the batch buffers (unused parts are empty).
struct SampleOut {
  std::span<float> input_f32;
  std::span<std::int64_t> input_i64;
  std::span<std::int64_t> target;
  std::span<std::int64_t> attention_mask;
  std::span<std::int64_t> token_type_ids;
};

/// Outcome of one get(): hot-path code reports failures as values, not exceptions.
struct SampleStatus {
  bool ok = true;
  std::uint64_t bytes_read = 0;  ///< bytes read from files (or decompressed memory) for this sample
  std::string error;             ///< on failure: names the file and offset/line, the value, what is valid

  static SampleStatus success(std::uint64_t bytes) { return {true, bytes, {}}; }
  static SampleStatus failure(std::string message) { return {false, 0, std::move(message)}; }
};

/// A random-access data set. get() is called concurrently from several worker threads with distinct
/// `out` slices; implementations keep per-thread scratch (thread_local) and no shared mutable state.
class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual const DatasetInfo& info() const = 0;
  virtual std::int64_t size() const = 0;
  /// Writes sample `index` (0 <= index < size()) into `out`, drawing augmentation randomness from
  /// `rng` only (seeded per (seed, epoch, index) by the caller), so results do not depend on threads.
  virtual SampleStatus get(std::int64_t index, Rng& rng, const SampleOut& out) const = 0;
};

/// Sum of the sizes of `files` (missing files count 0).
std::uint64_t total_file_bytes(const std::vector<std::filesystem::path>& files);

}  // namespace jetchar::loaders
