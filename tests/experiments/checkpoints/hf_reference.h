// What the Hugging Face checkpoint tests share: the batch a tests/experiments/tiny_hf_*.py script
// ran its plain-PyTorch reference forward on (written beside the checkpoint), and how far jetchar's
// outputs are from that forward's.
#pragma once

#include <gtest/gtest.h>

#include "experiments/checkpoints/hf_checkpoint.h"
#include "experiments/compute_threads.h"
#include "loaders/batch.h"

namespace jetchar::experiments::hf_reference {

/// The reference's input ids and attention mask, and its token types where it has them (DistilBERT
/// has none).
inline loaders::Batch reference_batch(const TensorMap& reference) {
  loaders::Batch batch;
  batch.inputs = reference.at("input_ids");
  batch.attention_mask = reference.at("attention_mask");
  if (const auto types = reference.find("token_type_ids"); types != reference.end())
    batch.token_type_ids = types->second;
  return batch;
}

/// The largest absolute difference of two tensors of one shape.
inline double max_difference(const torch::Tensor& a, const torch::Tensor& b) {
  EXPECT_EQ(a.sizes(), b.sizes());
  return (a - b).abs().max().item<double>();
}

/// One compute thread (LibTorch's and OpenBLAS's) while it lives, as the reference forward ran
/// (tests/support/python_script_output.h): OpenBLAS splits a product over its threads, one per core
/// unless told otherwise, and a sum split otherwise differs by up to 4e-5 here; a sweep earlier in
/// the test process leaves its own count.
class OneComputeThread {
 public:
  OneComputeThread() : before_(torch::get_num_threads()) { set_compute_threads(1); }
  ~OneComputeThread() { set_compute_threads(before_); }
  OneComputeThread(const OneComputeThread&) = delete;
  OneComputeThread& operator=(const OneComputeThread&) = delete;

 private:
  int before_;
};

}  // namespace jetchar::experiments::hf_reference
