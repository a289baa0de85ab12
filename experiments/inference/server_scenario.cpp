#include "experiments/inference/server_scenario.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <stdexcept>
#include <thread>

#include "sysfs/monotonic_clock.h"

namespace jetchar::experiments {

namespace {

using Clock = std::chrono::steady_clock;

// The nearest rank of p99 among `n` latencies: ⌈0.99 n⌉ (latency_stats.h).
std::int64_t p99_rank(std::int64_t n) { return (99 * n + 99) / 100; }

// Waits until `deadline`: sleeps while it is more than a millisecond away (in slices, so that a
// stop request is seen), then spins, since a sleep overshoots by tens of microseconds and every
// microsecond late is a microsecond of the next query's latency. The spin does not yield: on a
// busy host a yield hands the core to another process for its whole time slice (milliseconds).
void wait_until(Clock::time_point deadline) {
  constexpr auto kSpin = std::chrono::microseconds(500);
  constexpr auto kSlice = std::chrono::milliseconds(50);
  const auto left = deadline - Clock::now();
  if (left > 2 * kSpin) {
    std::this_thread::sleep_for(std::min<Clock::duration>(left - kSpin, kSlice));
    return;
  }
  while (Clock::now() < deadline) {
  }
}

void check(const ServerSettings& settings) {
  if (settings.latency_bound_ns <= 0)
    throw std::invalid_argument(fmt::format("latency bound {} ns must be positive", settings.latency_bound_ns));
  if (settings.max_batch < 1)
    throw std::invalid_argument(fmt::format("server batch {} must be at least 1", settings.max_batch));
  if (settings.min_queries < 1)
    throw std::invalid_argument(fmt::format("server trial of {} queries: at least 1", settings.min_queries));
}

}  // namespace

std::optional<double> ServerSearch::max_qps() const {
  return best ? std::optional<double>(trials[*best].rate_qps) : std::nullopt;
}

std::optional<std::int64_t> ServerSearch::max_qps_p99_ns() const {
  return best ? std::optional<std::int64_t>(trials[*best].p99_ns) : std::nullopt;
}

std::vector<std::int64_t> poisson_arrivals_ns(double rate_qps, std::int64_t count, std::uint64_t seed) {
  if (!(rate_qps > 0) || !std::isfinite(rate_qps))
    throw std::invalid_argument(fmt::format("arrival rate {} QPS must be positive", rate_qps));
  // Inverse transform of 53-bit uniforms in (0, 1]: mt19937_64's output is fixed by the
  // standard, unlike std::exponential_distribution's.
  std::mt19937_64 generator(seed);
  std::vector<std::int64_t> arrivals;
  arrivals.reserve(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)));
  double t_s = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    const double u = static_cast<double>((generator() >> 11) + 1) * 0x1.0p-53;
    t_s += -std::log(u) / rate_qps;
    arrivals.push_back(std::llround(t_s * 1e9));
  }
  return arrivals;
}

std::int64_t server_trial_queries(const ServerSettings& settings, double rate_qps) {
  const double by_duration = std::ceil(rate_qps * settings.min_duration_s);
  return std::max<std::int64_t>(settings.min_queries, static_cast<std::int64_t>(by_duration));
}

ServerTrialRun run_server_trial(const ServerSettings& settings, double rate_qps, const ServeBatch& serve,
                                const StopRequested& stop) {
  check(settings);
  ServerTrialRun run;
  run.trial.rate_qps = rate_qps;
  run.trial.planned = server_trial_queries(settings, rate_qps);
  const std::int64_t planned = run.trial.planned;
  const auto arrivals = poisson_arrivals_ns(rate_qps, planned, settings.seed);
  // More late queries than ranks above p99's fail the trial whatever the rest do.
  const std::int64_t allowed_late = planned - p99_rank(planned);
  run.latencies_ns.reserve(static_cast<std::size_t>(planned));
  std::int64_t next = 0, late = 0, last_done_ns = 0;
  run.begin_monotonic_ns = sysfs::monotonic_ns();
  auto start = Clock::now();  // moved on by the host's delays: the trial's clock stops for them
  const auto elapsed_ns = [&start](Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t - start).count();
  };
  while (next < planned && late <= allowed_late) {
    if (stop && stop()) {
      run.stopped = true;
      break;
    }
    const std::int64_t now = elapsed_ns(Clock::now());
    if (arrivals[next] > now) {
      wait_until(start + std::chrono::nanoseconds(arrivals[next]));
      continue;
    }
    // Every query that has arrived, up to the largest batch.
    std::int64_t n = 1;
    while (n < settings.max_batch && next + n < planned && arrivals[next + n] <= now) ++n;
    const auto done = serve(n);
    const auto host_done = Clock::now();
    last_done_ns = elapsed_ns(std::min(done, host_done));
    if (done < host_done) {
      run.host_delay_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(host_done - done).count();
      start += host_done - done;
    }
    for (std::int64_t i = next; i < next + n; ++i) {
      const std::int64_t latency = last_done_ns - arrivals[i];
      run.latencies_ns.push_back(latency);
      if (latency > settings.latency_bound_ns) ++late;
    }
    next += n;
    ++run.trial.batches;
  }
  run.end_monotonic_ns = sysfs::monotonic_ns();
  run.span_ns = last_done_ns;
  run.trial.queries = static_cast<std::int64_t>(run.latencies_ns.size());
  if (!run.latencies_ns.empty()) {
    auto sorted = run.latencies_ns;
    std::sort(sorted.begin(), sorted.end());
    run.trial.p99_ns = nearest_rank(sorted, 99);
  }
  // A trial a stop request cut short is not judged: too few of its queries ran.
  run.trial.passed = !run.stopped && next == planned && run.trial.p99_ns <= settings.latency_bound_ns;
  return run;
}

// The search, after MLPerf LoadGen's peak-performance mode: widen, then bisect.
//  - Start at half the capacity: a single server with Poisson arrivals at utilisation 0.5 waits
//    a few service times at p99 (M/D/1), so a bound of a few query times passes there and the
//    first trial says which way to go.
//  - Widen by doubling, but never past the capacity (back-to-back queries of the largest batch per
//    second): above it the queue grows without end, and only a trial too short to see it would
//    pass. A pass at the capacity ends the search there.
//  - Narrow by halving at most kMaxHalvings times (to a sixteenth of the capacity): at that
//    utilisation queries hardly ever queue, so a failure means one query alone takes about the
//    bound, and lower rates would only take longer to say so.
//  - Bisect between the highest pass and the lowest fail until they are within 5 % of each other:
//    the p99 of a few hundred queries is itself only that precise. Every trial draws the same
//    arrival sequence (scaled by the rate), so p99 grows with the rate and the bisection is not
//    thrown by one trial's luck.
//  - kServerMaxTrials bounds the whole search (typically 7-10 trials run).
ServerSearch find_peak_server_qps(const ServerSettings& settings, double capacity_qps, const ServeBatch& serve,
                                  const StopRequested& stop, const TrialDone& trial_done) {
  check(settings);
  if (!(capacity_qps > 0) || !std::isfinite(capacity_qps))
    throw std::invalid_argument(fmt::format("server capacity {} QPS must be positive", capacity_qps));
  constexpr int kMaxHalvings = 3;
  ServerSearch search;
  search.settings = settings;
  search.capacity_qps = capacity_qps;
  search.start_qps = kServerStartFraction * capacity_qps;
  std::optional<double> pass, fail;
  // Runs a trial; false when a stop request ended it.
  const auto trial = [&](double rate) {
    auto run = run_server_trial(settings, rate, serve, stop);
    search.trials.push_back(run.trial);
    if (trial_done) trial_done(run.trial);
    if (run.stopped) {
      search.stopped = true;
      return false;
    }
    if (run.trial.passed) {
      if (!pass || rate > *pass) {
        pass = rate;
        search.best = search.trials.size() - 1;
        search.best_run = std::move(run);
      }
    } else if (!fail || rate < *fail) {
      fail = rate;
    }
    return true;
  };
  const auto trials_left = [&] { return static_cast<int>(search.trials.size()) < kServerMaxTrials; };

  double rate = search.start_qps;
  int halvings = 0;
  while (trials_left() && !(pass && fail)) {
    if (!trial(rate)) return search;
    if (search.trials.back().passed) {
      if (rate >= capacity_qps) return search;  // passes at the capacity: nothing above can
      rate = std::min(2 * rate, capacity_qps);
    } else {
      if (pass || halvings == kMaxHalvings) break;
      rate /= 2;
      ++halvings;
    }
  }
  while (pass && fail && trials_left() && (*fail - *pass) / *pass > kServerRelativePrecision) {
    if (!trial((*pass + *fail) / 2)) return search;
  }
  return search;
}

nlohmann::json to_json(const ServerSearch& search) {
  auto trials = nlohmann::json::array();
  for (const auto& t : search.trials) {
    trials.push_back({{"rate_qps", t.rate_qps},
                      {"queries", t.queries},
                      {"planned", t.planned},
                      {"p99_ms", static_cast<double>(t.p99_ns) / 1e6},
                      {"passed", t.passed},
                      {"batches", t.batches}});
  }
  const auto max_qps = search.max_qps();
  const auto p99 = search.max_qps_p99_ns();
  return {{"latency_bound_ms", static_cast<double>(search.settings.latency_bound_ns) / 1e6},
          {"max_batch", search.settings.max_batch},
          {"capacity_qps", search.capacity_qps},
          {"start_qps", search.start_qps},
          {"max_qps", max_qps ? nlohmann::json(*max_qps) : nlohmann::json(nullptr)},
          {"p99_ms", p99 ? nlohmann::json(static_cast<double>(*p99) / 1e6) : nlohmann::json(nullptr)},
          {"trials", trials},
          {"stopped", search.stopped}};
}

proto::ServerScenarioResult to_proto(const ServerSearch& search) {
  proto::ServerScenarioResult r;
  r.set_latency_bound_ms(static_cast<double>(search.settings.latency_bound_ns) / 1e6);
  r.set_max_batch(static_cast<std::uint32_t>(search.settings.max_batch));
  r.set_capacity_qps(search.capacity_qps);
  if (const auto max_qps = search.max_qps()) r.set_max_qps(*max_qps);
  if (const auto p99 = search.max_qps_p99_ns()) r.set_p99_ms(static_cast<double>(*p99) / 1e6);
  for (const auto& t : search.trials) {
    auto* trial = r.add_trials();
    trial->set_rate_qps(t.rate_qps);
    trial->set_queries(static_cast<std::uint64_t>(t.queries));
    trial->set_p99_ms(static_cast<double>(t.p99_ns) / 1e6);
    trial->set_passed(t.passed);
  }
  r.set_stopped(search.stopped);
  return r;
}

}  // namespace jetchar::experiments
