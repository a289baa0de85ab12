// The simulated board's time model: how long one training or inference minibatch takes on a
// Jetson in a given power mode, from the work the workload's model definition asks for. A sweep on
// `sim:<fixture>` paces every minibatch's compute to this time (experiments/training), so its
// epoch times follow the mode's clocks as a real board's do. Every figure it gives is MODELLED.
//
// Work of one minibatch (model_work.h in experiments/ counts it from the model definition):
//   gpu_macs      = passes × batch × forward MACs per sample          (training: 3 passes, the
//                   backward pass costing two forwards; inference: 1)
//   dram_bytes    = 4 B × (weight_passes × parameters + activation_passes × batch × activations)
//                   + kDramBytesPerMac × gpu_macs
//                   (fp32; training reads the weights in forward and backward, writes the
//                   gradients and reads/writes weights and momentum in the optimizer step:
//                   6 weight passes; activations are written forward, read backward and their
//                   gradients written: 3 passes. Inference: 1 weight pass, 2 activation passes.
//                   The last term: operand re-reads the on-chip caches miss.)
//   kernels       = ops_per_layer × counted layers + optimizer kernels per parameter tensor
//                   (training: 8 ops per layer for forward, activation, backward of input and
//                   weight, and gradient bookkeeping, plus 2 per parameter tensor; inference: 3)
//
// Time of one minibatch in a mode (c online cores, CPU clock f, GPU clock g, EMC clock m):
//   t_dispatch = kernels × (kCpuCyclesPerKernel / f + kDispatchDramNsPerKernel × m_max / m)
//                the CPU side of eager PyTorch: operator dispatch and launch, mostly core cycles,
//                partly cache misses served by DRAM
//   t_host     = kernels × kParallelCpuCyclesPerKernel / (f × min(c, kParallelCores))
//                host work spread over the cores (allocator, autograd bookkeeping threads)
//   t_gpu      = gpu_macs / (kGpuEfficiency × cuda_cores × g)
//                + kernels × (kGpuCyclesPerKernel / g + kGpuDramNsPerKernel × m_max / m)
//                arithmetic at a fraction of the FP32 FMA peak, plus each kernel's minimum
//                duration: a little in GPU cycles (launch latency, ramp-up, tail), mostly DRAM
//                latency that a small kernel cannot hide (it scales with the EMC period)
//   t_dram     = dram_bytes / (kDramEfficiency × bus_bytes_per_cycle × m)
//   t          = kSyncSeconds + ‖(t_dispatch + t_host, ‖(t_gpu, t_dram)‖₂)‖₄
//                GPU kernels and DRAM traffic overlap on the shared-memory SoC (2-norm); the CPU
//                launches ahead of the GPU asynchronously, so dispatch and device overlap as well
//                (a 4-norm: close to the larger of the two); the per-minibatch synchronize costs a
//                fixed round trip.
// The constants are assumptions chosen to follow the seed study's AGX Xavier table, not a
// calibration. Its mode d -> e (CPU 1.2 → 2.1 GHz; GPU 0.9, EMC 1.6 GHz) cuts LeNet-5's compute by
// about 37 %; h -> g (EMC 1.066 → 2.133 GHz at MAXN's CPU 2.265 and GPU 1.377 GHz) by about 33 %
// for LeNet-5, 26 % for ResNet-18 and 28 % for MobileNetV3. For LeNet's few small kernels the two
// sides trade places: dispatch dominates in d; in e the GPU's latency-bound kernels take about as
// long as dispatch, so the cut stays below the CPU clock ratio's 43 %; in h (slow EMC) the GPU side
// dominates; in g dispatch does again. The bigger
// models are GPU- and DRAM-bound, so the CPU clock hardly moves them. The model gives LeNet
// 34 % (d -> e) and 28–29 % (h -> g), ResNet-18 22 % and MobileNetV3 33 % (h -> g);
// tests/experiments/models/study_trends_test.cpp holds it to ±8 points of the study on the work
// counted from jetchar's model definitions, tests/jetson/simulated/simulated_time_model_test.cpp
// to bands around the same trends. The board's throughput figures (CUDA cores, DRAM bus
// width) are the modules' published specifications (NVIDIA Jetson module data sheets), per family.
//
// Fetch stall of one training minibatch of B samples (FetchWork, counted by experiments/fetch_work.h
// from the data set and the loader's settings), as the study's PyTorch DataLoader fetches it:
//   cycles     = B × (kLoaderCyclesPerSample + kLoaderCyclesPerValue × input values
//                     + kDecodeCyclesPerStoredByte × stored bytes, for compressed images)
//                a sample's __getitem__ and transforms (ToTensor, Normalize), and decoding and
//                resizing a JPEG
//   t_prepare  = cycles / f + cycles × kLoaderDramNsPerCycle × m_max / m
//                + kCollatePasses × B × input bytes / bandwidth(m)
//                one loader (a worker, or the training loop with no workers) reading and
//                collating the batch: core cycles, and the cache misses of that work waiting on
//                DRAM latency (the EMC period), then the collate's copy
//   t_copy     = kCopySeconds + kCopyPasses × B × input bytes / bandwidth(m)
//                the blocking copy of the collated batch to the device from memory that is not
//                pinned (the study's pin_memory=False): through a staging buffer, on the shared DRAM
//   stall      = t_copy + t_prepare                                          (no workers)
//              = t_copy + max(0, t_prepare / w' − t_copy − t_compute)        (w workers)
//                w' = min(w, online cores − 1, at least 1): the workers prepare batches in
//                parallel while the loop copies and computes; the first minibatch of an epoch
//                waits for a whole t_prepare (the workers start with it).
// With the study's defaults (no workers, batch 16), doubling the EMC (h -> g) cuts the stall of
// LeNet-5 (Fashion-MNIST), ResNet-18 (CIFAR-10) and MobileNetV3 (GLD-23k JPEGs) by about 30 %; the
// study reports about 34, 28 and 28 % (tests/experiments/models/study_trends_test.cpp holds the
// model to it within 8 points).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "jetson/discovery/board_hooks.h"  // ModelWork, FetchWork

namespace jetchar::jetson {

/// What one minibatch asks of the board.
struct MinibatchWork {
  double gpu_macs = 0;    ///< multiply-accumulates the GPU performs
  double dram_bytes = 0;  ///< bytes moved between DRAM and the compute units
  double kernels = 0;     ///< operators the CPU dispatches, each a GPU kernel
};

/// The work of one training minibatch of `batch` samples (see the header comment).
MinibatchWork training_work(const ModelWork& model, double batch);
/// The work of one inference batch of `batch` samples.
MinibatchWork inference_work(const ModelWork& model, double batch);

/// The clocks of a power mode as the board runs them.
struct ModeClocks {
  int online_cores = 0;
  double cpu_ghz = 0;
  double gpu_ghz = 0;
  double emc_ghz = 0;
};

/// A module family's published throughput figures.
struct SocThroughput {
  std::string family;
  double cuda_cores = 0;     ///< one FP32 FMA per core per cycle
  double dram_bus_bits = 0;  ///< double data rate: bus_bits × 2 / 8 bytes per EMC cycle
  double emc_max_ghz = 0;    ///< the EMC clock the module's peak bandwidth is quoted at
  double bus_bytes_per_cycle() const { return dram_bus_bits * 2.0 / 8.0; }
};

/// The figures of a family as board discovery names it ("AGX Orin", "Xavier NX", "Nano", ...);
/// nullopt for a family the table does not hold.
std::optional<SocThroughput> soc_throughput(std::string_view family);

/// The per-resource times of one minibatch, seconds.
struct MinibatchTime {
  double dispatch_s = 0;
  double host_s = 0;
  double gpu_s = 0;
  double dram_s = 0;
  double total_s = 0;
  /// Busy shares of the minibatch (for the power model). The CPU's: dispatch and host work, and
  /// the spin-wait for the device after them (CUDA spins by default while a process has fewer
  /// contexts than cores), so all but the synchronize's round trip, whichever side is slower. The
  /// GPU's counts its computing (arithmetic and each kernel's cycles), not the time its kernels
  /// wait on DRAM latency (kGpuDramNsPerKernel), in which its cores switch little.
  double cpu_busy = 0;
  double gpu_busy = 0;
};

/// The modelled time of one minibatch of `work` on `soc` in `clocks`. Throws
/// std::invalid_argument naming the knob when a clock or the core count is not positive, or a
/// work figure is negative.
MinibatchTime modelled_minibatch_time(const MinibatchWork& work, const SocThroughput& soc, const ModeClocks& clocks);

/// The modelled fetch of one training minibatch, seconds (see the header comment).
struct FetchTime {
  double prepare_s = 0;  ///< one loader reading, decoding and collating the batch
  double copy_s = 0;     ///< the blocking copy of the collated batch to the device
  double stall_s = 0;    ///< what the training loop waits for the batch
};

/// The modelled fetch of a minibatch of `batch` samples of `work` on `soc` in `clocks`, beside a
/// modelled compute of `compute_s` per minibatch; `epoch_start`: the epoch's first minibatch.
/// Throws std::invalid_argument as modelled_minibatch_time does, or for negative fetch figures.
FetchTime modelled_fetch_time(const FetchWork& work, double batch, const SocThroughput& soc, const ModeClocks& clocks,
                              double compute_s, bool epoch_start);

/// One line that says where the figures come from, stored with every paced run.
std::string_view time_model_label();

}  // namespace jetchar::jetson
