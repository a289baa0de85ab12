// A rank that a node's first rank started (`jetchar rank-worker`): it joins the rendezvous, reads
// the run's resolved spec that its node's first rank published, builds the same workload on its
// shard of the data and trains with the others. It measures no board and stores nothing: its
// figures reach the recording rank through the process group after every epoch. SIGINT and
// SIGTERM end it at the next minibatch, together with the other ranks.
#pragma once

#include "experiments/distributed/rank_group.h"

namespace jetchar::experiments::distributed {

/// Trains rank `place.rank`; throws (naming the rank) when it cannot join or its training fails.
void run_rank_worker(const Rendezvous& rendezvous, const RankPlace& place);

}  // namespace jetchar::experiments::distributed
