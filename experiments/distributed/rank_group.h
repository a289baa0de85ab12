// The ranks of a data-parallel run joined into one c10d process group, as torch.distributed's
// init_process_group(init_method="tcp://...") joins them: node 0's first rank hosts a c10d
// TCPStore at master_addr:master_port, every rank connects to it and writes that it has joined,
// and the Gloo (or NCCL) process group is made over it. A rank that never comes is named when the
// rendezvous's time is up; a rank started here that exits first is named at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace c10d {
class ProcessGroup;
class Store;
}  // namespace c10d

namespace jetchar::experiments::distributed {

struct RankPlace {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;  ///< on its machine
  int node_rank = 0;
};

struct Rendezvous {
  std::string master_addr = "127.0.0.1";
  int master_port = 0;  ///< 0: rank 0 takes a free port (port() tells which)
  std::string backend = "gloo";
  std::chrono::milliseconds timeout{300000};
};

class RankGroup {
 public:
  /// Rank 0: hosts the store and returns once it listens (the others can be started then).
  /// Other ranks: connect to it, waiting up to the timeout for it to listen.
  RankGroup(const Rendezvous& rendezvous, RankPlace place);
  ~RankGroup();
  RankGroup(const RankGroup&) = delete;
  RankGroup& operator=(const RankGroup&) = delete;

  /// The store's port (rank 0's choice when it was 0).
  int port() const;
  const RankPlace& place() const { return place_; }
  const Rendezvous& rendezvous() const { return rendezvous_; }

  /// A value every rank can read (the run's spec, from the rank that started them).
  void publish(const std::string& key, const std::string& value);
  /// Waits up to the timeout for `key`.
  std::string read(const std::string& key);
  /// Whether the store holds `key` now (no wait).
  bool holds(const std::string& key);
  /// Adds `amount` to the counter `key` (0 when absent) and returns its new value.
  std::int64_t add(const std::string& key, std::int64_t amount);

  /// Writes this rank's arrival, waits until every rank has arrived and makes the process group.
  /// Rank 0 names the ranks still missing when the time is up; `peer_exit` (asked while it waits)
  /// returns why a rank it started has gone, which ends the wait at once.
  void join(const std::function<std::optional<std::string>()>& peer_exit = {});

  /// After join(): the process group.
  c10d::ProcessGroup& group();

 private:
  Rendezvous rendezvous_;
  RankPlace place_;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// "gloo" (LibTorch's CPU backend) where jetchar was built with Gloo's headers; "nccl" not yet.
bool backend_available(const std::string& backend);
/// Why `backend` cannot be used here, naming what can.
std::string unavailable_backend(const std::string& backend);

}  // namespace jetchar::experiments::distributed
