#include "experiments/distributed/rank_group.h"

// Debian's libtorch-dev guards the Gloo process group behind USE_C10D_GLOO, which LibTorch's own
// build defines; libgloo-dev provides the headers it includes.
#if __has_include(<gloo/config.h>) && !defined(USE_C10D_GLOO)
#define USE_C10D_GLOO
#endif

#include <fmt/format.h>
#include <fmt/ranges.h>
#ifdef USE_C10D_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <stdexcept>
#include <thread>
#include <vector>

namespace jetchar::experiments::distributed {

namespace {

std::string joined_key(int rank) { return fmt::format("jetchar/joined/{}", rank); }

std::string where(const Rendezvous& rendezvous, int port) { return fmt::format("{}:{}", rendezvous.master_addr, port); }

}  // namespace

struct RankGroup::Impl {
  c10::intrusive_ptr<c10d::TCPStore> store;
  c10::intrusive_ptr<c10d::ProcessGroup> group;
};

#ifdef USE_C10D_GLOO
bool backend_available(const std::string& backend) { return backend == "gloo"; }
#else
bool backend_available(const std::string&) { return false; }  // built without Gloo's headers (libgloo-dev)
#endif

std::string unavailable_backend(const std::string& backend) {
  return fmt::format(
      "distributed backend '{}' is not in this jetchar's LibTorch; valid here: {} (nccl needs a LibTorch built with "
      "CUDA and NCCL)",
      backend, backend_available("gloo") ? "gloo" : "none (built without libgloo-dev's headers)");
}

RankGroup::RankGroup(const Rendezvous& rendezvous, RankPlace place)
    : rendezvous_(rendezvous), place_(place), impl_(std::make_unique<Impl>()) {
  if (!backend_available(rendezvous.backend)) throw std::invalid_argument(unavailable_backend(rendezvous.backend));
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(rendezvous.master_port);
  options.isServer = place.rank == 0;
  options.numWorkers = place.world_size;
  options.waitWorkers = false;  // join() waits, naming who is missing
  options.timeout = rendezvous.timeout;
  try {
    impl_->store = c10::make_intrusive<c10d::TCPStore>(rendezvous.master_addr, options);
  } catch (const std::exception& error) {
    throw std::runtime_error(fmt::format("rank {}: the rendezvous at {} could not be {}: {}", place.rank,
                                         where(rendezvous, rendezvous.master_port),
                                         place.rank == 0 ? "opened" : "reached", error.what()));
  }
}

RankGroup::~RankGroup() = default;

int RankGroup::port() const { return impl_->store->getPort(); }

void RankGroup::publish(const std::string& key, const std::string& value) {
  impl_->store->set(key, std::vector<std::uint8_t>(value.begin(), value.end()));
}

std::string RankGroup::read(const std::string& key) {
  const auto bytes = impl_->store->get(key);  // waits up to the store's timeout
  return {bytes.begin(), bytes.end()};
}

bool RankGroup::holds(const std::string& key) { return impl_->store->check({key}); }

std::int64_t RankGroup::add(const std::string& key, std::int64_t amount) { return impl_->store->add(key, amount); }

void RankGroup::join(const std::function<std::optional<std::string>()>& peer_exit) {
  auto& store = *impl_->store;
  store.set(joined_key(place_.rank), std::vector<std::uint8_t>{1});
  if (place_.rank == 0) {
    // Rank 0 polls, so that a rank it started that died is named at once and a missing one at
    // the deadline, never a bare store timeout.
    const auto deadline = std::chrono::steady_clock::now() + rendezvous_.timeout;
    for (;;) {
      std::vector<int> missing;
      for (int rank = 1; rank < place_.world_size; ++rank) {
        if (!store.check({joined_key(rank)})) missing.push_back(rank);
      }
      if (missing.empty()) break;
      if (peer_exit) {
        if (auto why = peer_exit()) throw std::runtime_error(*why);
      }
      if (std::chrono::steady_clock::now() >= deadline) {
        throw std::runtime_error(fmt::format("rank{} {} of {} did not join the rendezvous at {} within {} s",
                                             missing.size() > 1 ? "s" : "", fmt::join(missing, ", "), place_.world_size,
                                             where(rendezvous_, port()),
                                             std::chrono::duration<double>(rendezvous_.timeout).count()));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
#ifdef USE_C10D_GLOO
  auto options = c10d::ProcessGroupGloo::Options::create(rendezvous_.timeout);
  // Ranks of one machine talk over loopback; a world of several machines over the address the
  // host name resolves to (Gloo's default device).
  const bool one_machine = rendezvous_.master_addr == "127.0.0.1" || rendezvous_.master_addr == "localhost";
  options->devices.push_back(one_machine ? c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1")
                                         : c10d::ProcessGroupGloo::createDefaultDevice());
  try {
    impl_->group = c10::make_intrusive<c10d::ProcessGroupGloo>(impl_->store, place_.rank, place_.world_size, options);
  } catch (const std::exception& error) {
    throw std::runtime_error(fmt::format("rank {}: the {} process group of {} ranks could not be made: {}", place_.rank,
                                         rendezvous_.backend, place_.world_size, error.what()));
  }
#endif
}

c10d::ProcessGroup& RankGroup::group() {
  if (!impl_->group) throw std::logic_error("RankGroup::group() before join()");
  return *impl_->group;
}

}  // namespace jetchar::experiments::distributed
