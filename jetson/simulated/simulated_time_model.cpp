#include "jetson/simulated/simulated_time_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace jetchar::jetson {
namespace {

// Assumptions of the model (simulated_time_model.h says what each term is). They are chosen so
// that, on the work counted from jetchar's LeNet-5, ResNet-18 (CIFAR) and MobileNetV3, the AGX
// Xavier's modes follow the seed study's table (tests/experiments/models/study_trends_test.cpp).
// Eager dispatch + launch of one operator, autograd included: ~45 us at 2.2 GHz. Large enough that
// LeNet's 60 kernels are dispatch-bound at the study's slow CPU (mode d) and at MAXN (mode g).
constexpr double kCpuCyclesPerKernel = 100'000;
// Cache misses per dispatch, at the top EMC clock: small, since the study's CPU 1.2 -> 2.1 GHz
// (d -> e) cuts LeNet by about 37 %, near the clock ratio's 43 %.
constexpr double kDispatchDramNsPerKernel = 500;
constexpr double kParallelCpuCyclesPerKernel = 6'000;  // host work that spreads over cores
constexpr double kParallelCores = 4;                   // beyond this many cores, no gain
constexpr double kGpuEfficiency = 0.35;                // achieved share of the FP32 FMA peak
// A kernel's minimum duration in GPU cycles (launch, ramp-up, tail); the lesser part of it.
constexpr double kGpuCyclesPerKernel = 2'000;
// A kernel's minimum duration spent on DRAM latency, at the top EMC clock (scales with the EMC
// period): a small kernel's loads and stores have too little parallelism to hide it. Sized so
// that LeNet's GPU side overtakes its dispatch at a slow EMC (mode h: doubling the EMC, h -> g,
// cuts LeNet by about 33 % in the study) and about matches it in mode e (fast CPU, GPU 0.9 GHz,
// EMC 1.6 GHz), which keeps the d -> e cut near the study's 37 %.
constexpr double kGpuDramNsPerKernel = 32'000;
constexpr double kDramEfficiency = 0.6;  // achieved share of the peak bandwidth
constexpr double kSyncSeconds = 250e-6;  // the per-minibatch synchronize round trip
constexpr double kBytesPerValue = 4;     // fp32
// Operand re-reads the on-chip caches miss. Beside the per-kernel DRAM latency above, this share
// puts the EMC's weight in ResNet-18's and MobileNetV3's compute where the study has it (doubling
// the EMC, h -> g, cuts them by about 26 % and 28 %).
constexpr double kDramBytesPerMac = 0.15;

// The fetch (the header's second part). The study's loader is PyTorch's Python DataLoader: a
// sample's __getitem__ with its transforms takes some 55,000 cycles (25 us at 2.2 GHz) before its
// values are touched, ToTensor and Normalize a few cycles per value, and decoding and resizing one
// of GLD-23k's JPEGs (about 100 kB, 800x600) some 15 million: with their cache misses, 13 ms a
// sample, as HiPC'21 measured 214 ms of stall per minibatch of 16 with no workers on an AGX Xavier
// at MAXN (309 s over an epoch's 1,443 minibatches).
constexpr double kLoaderCyclesPerSample = 55'000;
constexpr double kLoaderCyclesPerValue = 11;
constexpr double kDecodeCyclesPerStoredByte = 150;
// The loader's cache misses: DRAM latency per cycle of its work at the top EMC clock (it scales
// with the EMC period). The interpreter's and the decoder's working sets spill the CPU caches;
// this is what lets the EMC clock move the stall as the study's h -> g does (28-34 %).
constexpr double kLoaderDramNsPerCycle = 0.35;
constexpr double kCollatePasses = 2;    // the collate stacks the samples: a read and a write
constexpr double kCopyPasses = 4;       // pageable -> staging -> device: two reads, two writes
constexpr double kCopySeconds = 50e-6;  // the blocking copy's round trip

double p_norm(double a, double b, double p) {
  const double top = std::max(a, b);
  if (top <= 0) return 0;
  return top * std::pow(std::pow(a / top, p) + std::pow(b / top, p), 1.0 / p);
}

void require_positive(double value, const char* knob) {
  if (!(value > 0) || !std::isfinite(value)) {
    throw std::invalid_argument(fmt::format("simulated time model: {} must be positive, got {}", knob, value));
  }
}

void require_non_negative(double value, const char* what) {
  if (!(value >= 0) || !std::isfinite(value)) {
    throw std::invalid_argument(
        fmt::format("simulated time model: {} must be a non-negative number, got {}", what, value));
  }
}

// What both the compute and the fetch model need: the cores, the CPU and EMC clocks, the bus.
void require_cpu_and_dram(const SocThroughput& soc, const ModeClocks& clocks) {
  require_positive(clocks.online_cores, "the online core count");
  require_positive(clocks.cpu_ghz, "the CPU clock (GHz)");
  require_positive(clocks.emc_ghz, "the EMC clock (GHz)");
  require_positive(soc.dram_bus_bits, "the DRAM bus width");
  require_positive(soc.emc_max_ghz, "the top EMC clock");
}

// Published figures per family: CUDA cores and DRAM bus width from NVIDIA's Jetson module data
// sheets (Jetson Nano, TX2, TX2 NX, Xavier NX, AGX Xavier, Orin Nano 8GB, Orin NX 16GB, AGX Orin 64GB,
// AGX Thor T5000); emc_max_ghz is the memory clock their peak bandwidth is quoted at, so that
// bus_bytes_per_cycle × emc_max_ghz gives that bandwidth (e.g. AGX Orin 64 B × 3.2 GHz = 204.8 GB/s).
const std::array<SocThroughput, 9> kFamilies = {{
    {"Nano", 128, 64, 1.6},           // 25.6 GB/s LPDDR4
    {"TX2", 256, 128, 1.866},         // 59.7 GB/s LPDDR4
    {"TX2 NX", 256, 128, 1.866},      // 59.7 GB/s LPDDR4
    {"Xavier NX", 384, 128, 1.866},   // 59.7 GB/s LPDDR4x
    {"AGX Xavier", 512, 256, 2.133},  // 136.5 GB/s LPDDR4x
    {"Orin Nano", 1024, 128, 2.133},  // 68 GB/s LPDDR5 (8GB module)
    {"Orin NX", 1024, 128, 3.2},      // 102.4 GB/s LPDDR5 (16GB module)
    {"AGX Orin", 2048, 256, 3.2},     // 204.8 GB/s LPDDR5 (64GB module)
    {"AGX Thor", 2560, 256, 4.266},   // 273 GB/s LPDDR5X
}};

}  // namespace

MinibatchWork training_work(const ModelWork& model, double batch) {
  MinibatchWork work;
  work.gpu_macs = 3.0 * batch * model.forward_macs_per_sample;
  work.dram_bytes = kBytesPerValue * (6.0 * model.parameters + 3.0 * batch * model.activations_per_sample) +
                    kDramBytesPerMac * work.gpu_macs;
  work.kernels = 8.0 * model.layers + 2.0 * model.parameter_tensors;
  return work;
}

MinibatchWork inference_work(const ModelWork& model, double batch) {
  MinibatchWork work;
  work.gpu_macs = batch * model.forward_macs_per_sample;
  work.dram_bytes = kBytesPerValue * (model.parameters + 2.0 * batch * model.activations_per_sample) +
                    kDramBytesPerMac * work.gpu_macs;
  work.kernels = 3.0 * model.layers;
  return work;
}

std::optional<SocThroughput> soc_throughput(std::string_view family) {
  for (const auto& soc : kFamilies) {
    if (soc.family == family) return soc;
  }
  return std::nullopt;
}

MinibatchTime modelled_minibatch_time(const MinibatchWork& work, const SocThroughput& soc, const ModeClocks& clocks) {
  require_cpu_and_dram(soc, clocks);
  require_positive(clocks.gpu_ghz, "the GPU clock (GHz)");
  require_positive(soc.cuda_cores, "the CUDA core count");
  require_non_negative(work.gpu_macs, "gpu_macs");
  require_non_negative(work.dram_bytes, "dram_bytes");
  require_non_negative(work.kernels, "kernels");

  const double f = clocks.cpu_ghz * 1e9;
  const double g = clocks.gpu_ghz * 1e9;
  const double m = clocks.emc_ghz * 1e9;
  MinibatchTime t;
  t.dispatch_s =
      work.kernels * (kCpuCyclesPerKernel / f + kDispatchDramNsPerKernel * 1e-9 * soc.emc_max_ghz / clocks.emc_ghz);
  t.host_s = work.kernels * kParallelCpuCyclesPerKernel / (f * std::min<double>(clocks.online_cores, kParallelCores));
  const double gpu_latency_s = work.kernels * kGpuDramNsPerKernel * 1e-9 * soc.emc_max_ghz / clocks.emc_ghz;
  const double gpu_compute_s =
      work.gpu_macs / (kGpuEfficiency * soc.cuda_cores * g) + work.kernels * kGpuCyclesPerKernel / g;
  t.gpu_s = gpu_compute_s + gpu_latency_s;
  t.dram_s = work.dram_bytes / (kDramEfficiency * soc.bus_bytes_per_cycle() * m);
  const double cpu = t.dispatch_s + t.host_s;
  const double device = p_norm(t.gpu_s, t.dram_s, 2.0);
  t.total_s = kSyncSeconds + p_norm(cpu, device, 4.0);
  // The dispatch thread dispatches, then spin-waits in the synchronize until the device is done
  // (CUDA's default with fewer contexts than cores): busy all but the synchronize's round trip.
  t.cpu_busy = std::min(1.0, p_norm(cpu, device, 4.0) / t.total_s);
  t.gpu_busy = std::min(1.0, gpu_compute_s / t.total_s);
  return t;
}

FetchTime modelled_fetch_time(const FetchWork& work, double batch, const SocThroughput& soc, const ModeClocks& clocks,
                              double compute_s, bool epoch_start) {
  require_cpu_and_dram(soc, clocks);
  require_non_negative(batch, "the batch size");
  require_non_negative(work.input_values, "input_values");
  require_non_negative(work.input_bytes, "input_bytes");
  require_non_negative(work.stored_bytes, "stored_bytes");
  require_non_negative(work.workers, "the loader's workers");
  require_non_negative(compute_s, "the minibatch's compute time");

  const double f = clocks.cpu_ghz * 1e9;
  const double bandwidth = kDramEfficiency * soc.bus_bytes_per_cycle() * clocks.emc_ghz * 1e9;
  const double cycles = batch * (kLoaderCyclesPerSample + kLoaderCyclesPerValue * work.input_values +
                                 (work.decodes_images ? kDecodeCyclesPerStoredByte * work.stored_bytes : 0.0));
  FetchTime t;
  t.prepare_s = cycles / f + cycles * kLoaderDramNsPerCycle * 1e-9 * soc.emc_max_ghz / clocks.emc_ghz +
                kCollatePasses * batch * work.input_bytes / bandwidth;
  t.copy_s = kCopySeconds + kCopyPasses * batch * work.input_bytes / bandwidth;
  if (work.workers == 0 || epoch_start) {
    t.stall_s = t.copy_s + t.prepare_s;
  } else {
    const double parallel = std::max(1, std::min(work.workers, clocks.online_cores - 1));
    t.stall_s = t.copy_s + std::max(0.0, t.prepare_s / parallel - t.copy_s - compute_s);
  }
  return t;
}

std::string_view time_model_label() {
  return "modelled: minibatch fetch stall and compute paced to jetson/simulated/simulated_time_model.h (work "
         "from the data set and the model definition; the mode's cores and CPU/GPU/EMC clocks)";
}

}  // namespace jetchar::jetson
