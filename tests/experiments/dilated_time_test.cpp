// A dilated run's figures: every time and energy divided by k, rates multiplied by k, powers,
// sample counts and clock readings left alone; nothing changes at k = 1.
#include "experiments/dilated_time.h"

#include <gtest/gtest.h>

namespace jetchar::experiments {
namespace {

proto::RunResult dilated_record() {
  proto::RunResult result;
  auto* e = result.add_epochs();
  e->set_stall_s(0.4);
  e->set_compute_s(1.6);
  e->set_e2e_s(2.2);
  e->set_start_s(1.0);
  e->set_samples(64);
  e->set_energy_j(44.0);
  e->set_incremental_energy_j(22.0);
  e->set_energy_per_sample_j(44.0 / 64);
  e->set_average_power_w(20.0);
  auto* rail = e->add_rails();
  rail->set_energy_j(30.0);
  rail->set_average_power_w(13.6);
  auto* m = result.add_minibatches();
  m->set_stall_s(0.1);
  m->set_compute_s(0.2);
  m->set_energy_j(6.0);
  auto* l = result.mutable_latency();
  l->set_batches(10);
  l->set_p50_ms(8.0);
  l->set_p99_ms(12.0);
  l->set_avg_ms(9.0);
  l->set_max_ms(14.0);
  l->set_throughput_samples_per_s(100.0);
  l->set_energy_per_query_j(0.5);
  result.mutable_baseload()->set_power_w(5.0);
  result.set_duration_s(30.0);
  return result;
}

TEST(DilatedTimeTest, TimesAndEnergiesAreDividedAndRatesMultiplied) {
  auto result = dilated_record();
  std::vector<results::StoredPowerSample> samples = {{0.5, "VDD_IN", 20.0}, {-0.1, "VDD_IN", 5.0}};
  undilate(2.0, result, samples);
  const auto& e = result.epochs(0);
  EXPECT_DOUBLE_EQ(e.stall_s(), 0.2);
  EXPECT_DOUBLE_EQ(e.compute_s(), 0.8);
  EXPECT_DOUBLE_EQ(e.e2e_s(), 1.1);
  EXPECT_DOUBLE_EQ(e.start_s(), 0.5);
  EXPECT_DOUBLE_EQ(e.energy_j(), 22.0);
  EXPECT_DOUBLE_EQ(e.incremental_energy_j(), 11.0);
  EXPECT_DOUBLE_EQ(e.energy_per_sample_j(), 22.0 / 64);
  EXPECT_DOUBLE_EQ(e.rails(0).energy_j(), 15.0);
  EXPECT_DOUBLE_EQ(e.average_power_w(), 20.0) << "power is the modelled board's, dilated or not";
  EXPECT_DOUBLE_EQ(e.rails(0).average_power_w(), 13.6);
  EXPECT_EQ(e.samples(), 64u);
  EXPECT_DOUBLE_EQ(result.minibatches(0).stall_s(), 0.05);
  EXPECT_DOUBLE_EQ(result.minibatches(0).compute_s(), 0.1);
  EXPECT_DOUBLE_EQ(result.minibatches(0).energy_j(), 3.0);
  const auto& l = result.latency();
  EXPECT_DOUBLE_EQ(l.p50_ms(), 4.0);
  EXPECT_DOUBLE_EQ(l.p99_ms(), 6.0);
  EXPECT_DOUBLE_EQ(l.avg_ms(), 4.5);
  EXPECT_DOUBLE_EQ(l.max_ms(), 7.0);
  EXPECT_DOUBLE_EQ(l.throughput_samples_per_s(), 200.0);
  EXPECT_DOUBLE_EQ(l.energy_per_query_j(), 0.25);
  EXPECT_FALSE(l.has_energy_per_sample_j()) << "absent stays absent";
  EXPECT_EQ(l.batches(), 10u);
  EXPECT_DOUBLE_EQ(result.baseload().power_w(), 5.0);
  EXPECT_DOUBLE_EQ(result.duration_s(), 30.0) << "how long the run took on this host";
  EXPECT_DOUBLE_EQ(result.modelled_time().dilation(), 2.0);
  EXPECT_DOUBLE_EQ(samples[0].t_s, 0.25);
  EXPECT_DOUBLE_EQ(samples[1].t_s, -0.05);
  EXPECT_DOUBLE_EQ(samples[0].power_w, 20.0);
}

TEST(DilatedTimeTest, NothingChangesWhenTheHostKeptUp) {
  auto result = dilated_record();
  std::vector<results::StoredPowerSample> samples = {{0.5, "VDD_IN", 20.0}};
  undilate(1.0, result, samples);
  EXPECT_EQ(result.SerializeAsString(), dilated_record().SerializeAsString());
  EXPECT_DOUBLE_EQ(samples[0].t_s, 0.5);
}

TEST(DilatedTimeTest, TheRunnersOwnResultsAreUndilatedAsTheRecordIs) {
  TrainingResult trained;
  trained.epochs.push_back({});
  trained.epochs[0].stall_ns = 300;
  trained.epochs[0].compute_ns = 900;
  trained.epochs[0].e2e_ns = 1500;
  trained.epochs[0].samples = 16;
  trained.minibatches.push_back({});
  trained.minibatches[0].start_ns = 123456;
  trained.minibatches[0].compute_ns = 600;
  const auto t = undilated(trained, 3.0);
  EXPECT_EQ(t.epochs[0].stall_ns, 100);
  EXPECT_EQ(t.epochs[0].compute_ns, 300);
  EXPECT_EQ(t.epochs[0].e2e_ns, 500);
  EXPECT_EQ(t.epochs[0].samples, 16);
  EXPECT_EQ(t.minibatches[0].compute_ns, 200);
  EXPECT_EQ(t.minibatches[0].start_ns, 123456) << "a clock reading, not a duration";

  InferenceResult inferred;
  inferred.latencies_ns = {4000, 2000, 6000};
  inferred.latency = latency_stats(inferred.latencies_ns);
  inferred.timed_ns = 12000;
  inferred.samples_per_s = 50.0;
  const auto i = undilated(inferred, 2.0);
  EXPECT_EQ(i.latencies_ns, (std::vector<std::int64_t>{2000, 1000, 3000}));
  ASSERT_TRUE(i.latency);
  EXPECT_EQ(i.latency->p50_ns, 2000);
  EXPECT_EQ(i.latency->max_ns, 3000);
  EXPECT_EQ(i.timed_ns, 6000);
  EXPECT_DOUBLE_EQ(i.samples_per_s, 100.0);

  QueryEnergy energy;
  energy.energy_j = 8.0;
  energy.per_query_j = 0.8;
  energy.per_sample_j = 0.1;
  energy.incremental_per_query_j = 0.4;
  energy.queries = 10;
  const auto q = undilated(energy, 2.0);
  EXPECT_DOUBLE_EQ(q.energy_j, 4.0);
  EXPECT_DOUBLE_EQ(q.per_query_j, 0.4);
  EXPECT_DOUBLE_EQ(q.per_sample_j, 0.05);
  EXPECT_DOUBLE_EQ(*q.incremental_per_query_j, 0.2);
  EXPECT_EQ(q.queries, 10);
}

// The server scenario searched on the host's clock with a bound k times the spec's: its rates are
// multiplied by k, its latencies and the bound divided by k, in the runner's result and the record.
TEST(DilatedTimeTest, TheServerSearchsRatesAndLatenciesAreTheModelledBoards) {
  ServerSearch search;
  search.settings.latency_bound_ns = 40'000'000;
  search.capacity_qps = 100;
  search.start_qps = 50;
  search.trials = {{50, 100, 100, 8'000'000, true, 100}, {100, 20, 100, 60'000'000, false, 20}};
  search.best = 0;
  search.best_run.trial = search.trials[0];
  search.best_run.latencies_ns = {2'000'000, 8'000'000};
  search.best_run.span_ns = 2'000'000'000;
  InferenceResult inferred;
  inferred.server = search;
  inferred.latencies_ns = search.best_run.latencies_ns;
  const auto i = undilated(inferred, 4.0);
  ASSERT_TRUE(i.server);
  const auto& s = *i.server;
  EXPECT_EQ(s.settings.latency_bound_ns, 10'000'000) << "the spec's bound again";
  EXPECT_DOUBLE_EQ(s.capacity_qps, 400);
  EXPECT_DOUBLE_EQ(s.start_qps, 200);
  EXPECT_DOUBLE_EQ(*s.max_qps(), 200);
  EXPECT_EQ(*s.max_qps_p99_ns(), 2'000'000);
  EXPECT_EQ(s.trials[1].p99_ns, 15'000'000);
  EXPECT_EQ(s.trials[1].queries, 20) << "counts stay";
  EXPECT_EQ(s.best_run.latencies_ns, (std::vector<std::int64_t>{500'000, 2'000'000}));
  EXPECT_EQ(s.best_run.span_ns, 500'000'000);

  proto::RunResult result;
  *result.mutable_server() = to_proto(search);
  std::vector<results::StoredPowerSample> samples;
  undilate(4.0, result, samples);
  EXPECT_DOUBLE_EQ(result.server().latency_bound_ms(), 10);
  EXPECT_DOUBLE_EQ(result.server().capacity_qps(), 400);
  EXPECT_DOUBLE_EQ(result.server().max_qps(), 200);
  EXPECT_DOUBLE_EQ(result.server().p99_ms(), 2);
  EXPECT_DOUBLE_EQ(result.server().trials(1).rate_qps(), 400);
  EXPECT_DOUBLE_EQ(result.server().trials(1).p99_ms(), 15);
  EXPECT_EQ(result.server().trials(1).queries(), 20u);
}

}  // namespace
}  // namespace jetchar::experiments
