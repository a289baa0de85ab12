// How a frontier probe holds itself to a memory budget on a CPU or a Jetson (where the GPU shares
// the DRAM): RLIMIT_AS, set by the probe process on itself once LibTorch is loaded and warmed up.
//
// RLIMIT_AS bounds virtual memory, and a LibTorch process reserves address space it never touches:
// the mapped libraries (libtorch_cpu alone is hundreds of MiB of text), thread stacks of the
// intra-op pool and the autograd engine, glibc's per-thread malloc arenas (64 MiB reservations).
// A limit of "budget" alone would fail before the first tensor. The policy: the probe first loads
// and warms up everything that reserves address space once (a parallel matmul with a backward pass
// on the configured threads), then reads its VmSize (the baseline) and sets the limit to baseline +
// budget. Large tensors are mmap'd by the allocator and touched in full, so from there on the
// virtual growth the limit sees is the memory the training uses. The probe reports its baseline,
// the limit, its VmPeak and its resident peak (VmHWM), so the slack is measured for every run.
//
// cgroup v2's memory.max would bound resident memory instead, but it needs the memory controller
// on the unified hierarchy and a writable cgroup; this project's CI host mounts a hybrid hierarchy
// (cgroup2 at /sys/fs/cgroup/unified offers only hugetlb; memory is on v1), so RLIMIT_AS is what
// the probes use (docs/memory-frontier.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sysfs/root.h"

namespace jetchar::experiments {

struct AddressSpaceLimit {
  std::uint64_t budget_bytes = 0;
  /// VmSize when the limit was set.
  std::uint64_t baseline_vm_bytes = 0;
  /// The RLIMIT_AS set (soft and hard): baseline + budget.
  std::uint64_t limit_bytes = 0;
};

/// A field of /proc/self/status in KiB ("VmSize", "VmPeak", "VmHWM", "VmRSS"); nullopt when the
/// file or the field is absent.
std::optional<std::uint64_t> own_status_kib(const sysfs::Root& root, const std::string& field);

/// Sets this process's RLIMIT_AS to its VmSize now plus `budget_bytes`. Throws
/// std::invalid_argument for a zero budget and std::runtime_error naming VmSize or setrlimit's
/// errno when either fails. Never raises an existing lower hard limit: that is an error naming both.
AddressSpaceLimit limit_address_space(const sysfs::Root& root, std::uint64_t budget_bytes);

}  // namespace jetchar::experiments
