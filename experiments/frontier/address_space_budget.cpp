#include "experiments/frontier/address_space_budget.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include <cerrno>
#include <stdexcept>
#include <string_view>

#include "sysfs/attribute.h"
#include "sysfs/errno_name.h"
#include "sysfs/proc_text.h"

namespace jetchar::experiments {

std::optional<std::uint64_t> own_status_kib(const sysfs::Root& root, const std::string& field) {
  const auto text = sysfs::try_read_string(root, "/proc/self/status");
  if (!text) return std::nullopt;
  // "VmSize:\t  123456 kB" (fs/proc/task_mmu.c, task_mem()).
  for (const auto line : sysfs::split_lines(*text)) {
    const auto fields = sysfs::split_fields(line);
    if (fields.size() == 3 && fields[0] == field + ":" && fields[2] == "kB") return sysfs::parse_u64(fields[1]);
  }
  return std::nullopt;
}

AddressSpaceLimit limit_address_space(const sysfs::Root& root, std::uint64_t budget_bytes) {
  if (budget_bytes == 0) throw std::invalid_argument("memory budget 0 bytes: give a budget above zero");
  const auto vm_kib = own_status_kib(root, "VmSize");
  if (!vm_kib)
    throw std::runtime_error("memory budget: VmSize is not in /proc/self/status, so RLIMIT_AS cannot be set");
  AddressSpaceLimit limit;
  limit.budget_bytes = budget_bytes;
  limit.baseline_vm_bytes = *vm_kib * 1024;
  limit.limit_bytes = limit.baseline_vm_bytes + budget_bytes;
  rlimit current{};
  if (::getrlimit(RLIMIT_AS, &current) != 0) {
    throw std::runtime_error(fmt::format("memory budget: getrlimit(RLIMIT_AS) failed: {}", sysfs::errno_name(errno)));
  }
  if (current.rlim_max != RLIM_INFINITY && current.rlim_max < limit.limit_bytes) {
    throw std::runtime_error(fmt::format(
        "memory budget {} MiB needs RLIMIT_AS {} MiB (VmSize {} MiB + budget), above the hard limit {} MiB "
        "this process inherited; give a budget of at most {} MiB",
        budget_bytes >> 20, limit.limit_bytes >> 20, limit.baseline_vm_bytes >> 20, current.rlim_max >> 20,
        current.rlim_max > limit.baseline_vm_bytes ? (current.rlim_max - limit.baseline_vm_bytes) >> 20 : 0));
  }
  const rlimit wanted{static_cast<rlim_t>(limit.limit_bytes), static_cast<rlim_t>(limit.limit_bytes)};
  if (::setrlimit(RLIMIT_AS, &wanted) != 0) {
    throw std::runtime_error(fmt::format("memory budget: setrlimit(RLIMIT_AS, {} bytes) failed: {}", limit.limit_bytes,
                                         sysfs::errno_name(errno)));
  }
  return limit;
}

}  // namespace jetchar::experiments
