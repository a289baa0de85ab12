#include "analysis/report_batch.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analysis/config_groups.h"
#include "analysis/config_point.h"
#include "analysis/record_fields.h"
#include "analysis/statistics.h"

namespace jetchar::analysis {
namespace {

using nlohmann::json;
using report_html::escape;

constexpr const char* kBatch = "batch";

// A value per epoch and its median; nullopt when no epoch has it.
std::optional<double> median_or_none(const std::vector<double>& values) {
  return values.empty() ? std::nullopt : std::optional<double>(median(values));
}

// One batch size of a group: its epochs' per-sample medians.
struct BatchRow {
  double batch = 0;
  std::string batch_text;
  double time_per_sample_s = 0;
  std::optional<double> stall_per_sample_s;
  std::optional<double> energy_per_sample_j;
  double epoch_s = 0;
  double samples = 0;
  std::size_t epochs = 0;
};

// The epochs of one configuration as aggregate() takes them: OK, with an epoch time and samples;
// epoch 0 (a cold page cache) left out where later epochs exist.
std::optional<BatchRow> batch_row(std::vector<const RunRecord*> rows, double batch, const std::string& text) {
  std::erase_if(rows, [](const RunRecord* r) { return !r->samples || *r->samples <= 0; });
  if (std::any_of(rows.begin(), rows.end(), [](const RunRecord* r) { return r->epoch.value_or(0) > 0; }))
    std::erase_if(rows, [](const RunRecord* r) { return r->epoch && *r->epoch == 0; });
  if (rows.empty()) return std::nullopt;
  std::vector<double> time, stall, energy, epoch, samples;
  for (const RunRecord* r : rows) {
    const auto n = static_cast<double>(*r->samples);
    time.push_back(*r->epoch_time_s / n);
    epoch.push_back(*r->epoch_time_s);
    samples.push_back(n);
    if (r->stall_s) stall.push_back(*r->stall_s / n);
    if (const auto e = record_energy_j(*r)) energy.push_back(*e / n);
  }
  return BatchRow{
      batch,           text,       median(time), median_or_none(stall), median_or_none(energy), median(epoch),
      median(samples), rows.size()};
}

json row_json(const BatchRow& r) {
  const auto ms = [](const std::optional<double>& s) { return s ? json(1000 * *s) : json(nullptr); };
  return {{"batch", r.batch_text},
          {"time_per_sample_ms", 1000 * r.time_per_sample_s},
          {"stall_per_sample_ms", ms(r.stall_per_sample_s)},
          {"rest_per_sample_ms", r.stall_per_sample_s ? json(1000 * (r.time_per_sample_s - *r.stall_per_sample_s))
                                                      : json(1000 * r.time_per_sample_s)},
          {"energy_per_sample_mj", ms(r.energy_per_sample_j)},
          {"samples_per_s", r.time_per_sample_s > 0 ? json(1 / r.time_per_sample_s) : json(nullptr)},
          {"epoch_s", r.epoch_s},
          {"samples", r.samples},
          {"epochs", r.epochs}};
}

// The sentence of one group: the batch with the least time per sample (against the smallest
// batch), its share of fetch stall, and the batch with the least energy per sample.
std::string group_sentence(const json& group) {
  const json& rows = group["rows"];
  const auto least = [&](const char* key) {
    const json* best = nullptr;
    for (const json& r : rows) {
      if (!r[key].is_null() && (!best || r[key].get<double>() < (*best)[key].get<double>())) best = &r;
    }
    return best;
  };
  const json* fastest = least("time_per_sample_ms");
  const json& smallest = rows.front();
  std::string sentence =
      fmt::format("{}: batch <strong>{}</strong> takes the least time per sample, {:.3g} ms",
                  escape(group["label"].get<std::string>()), escape((*fastest)["batch"].get<std::string>()),
                  (*fastest)["time_per_sample_ms"].get<double>());
  if (fastest != &smallest) {
    sentence +=
        fmt::format(" ({:.2g}× less than batch {})",
                    smallest["time_per_sample_ms"].get<double>() / (*fastest)["time_per_sample_ms"].get<double>(),
                    escape(smallest["batch"].get<std::string>()));
  }
  if (!(*fastest)["stall_per_sample_ms"].is_null()) {
    sentence += fmt::format(", {:.0f} % of it fetch stall", 100 * (*fastest)["stall_per_sample_ms"].get<double>() /
                                                                (*fastest)["time_per_sample_ms"].get<double>());
  }
  if (const json* frugal = least("energy_per_sample_mj")) {
    sentence += frugal == fastest ? fmt::format("; it also takes the least energy per sample, {:.3g} mJ",
                                                (*frugal)["energy_per_sample_mj"].get<double>())
                                  : fmt::format("; batch <strong>{}</strong> the least energy per sample, {:.3g} mJ",
                                                escape((*frugal)["batch"].get<std::string>()),
                                                (*frugal)["energy_per_sample_mj"].get<double>());
  }
  return "<p class=\"answer\" data-answer=\"batch\">" + sentence + ".</p>\n";
}

}  // namespace

json batch_section(const std::vector<RunRecord>& records) {
  // Training epochs by configuration; a configuration with a batch that is not a number is not on
  // a batch-size axis.
  std::map<ConfigKey, std::vector<const RunRecord*>> configurations;
  for (const RunRecord& r : records) {
    if (r.status != RunStatus::kOk || !r.epoch_time_s) continue;
    const auto batch = r.axes.find(kBatch);
    if (batch == r.axes.end() || !parse_number(batch->second)) continue;
    configurations[config_key(r)].push_back(&r);
  }
  std::map<ConfigKey, std::vector<BatchRow>> groups;
  for (const auto& [key, rows] : configurations) {
    const std::string text = key.axes.at(kBatch);
    ConfigKey without = key;
    without.axes.erase(kBatch);
    if (auto row = batch_row(rows, *parse_number(text), text)) groups[without].push_back(std::move(*row));
  }
  std::erase_if(groups, [](const auto& g) { return g.second.size() < 2; });
  std::vector<ConfigKey> keys;
  for (const auto& [key, rows] : groups) keys.push_back(key);
  const auto shown = varying_axes(keys);
  json out = json::array();
  for (auto& [key, rows] : groups) {
    std::sort(rows.begin(), rows.end(), [](const BatchRow& a, const BatchRow& b) { return a.batch < b.batch; });
    json group_rows = json::array();
    for (const BatchRow& r : rows) group_rows.push_back(row_json(r));
    const bool stall = std::any_of(rows.begin(), rows.end(), [](const BatchRow& r) { return r.stall_per_sample_s; });
    const bool energy = std::any_of(rows.begin(), rows.end(), [](const BatchRow& r) { return r.energy_per_sample_j; });
    out.push_back(
        {{"label", config_label(key, shown)}, {"has_stall", stall}, {"has_energy", energy}, {"rows", group_rows}});
  }
  return out;
}

std::string batch_html(const json& section, report_html::ChartCanvases& canvases) {
  if (section.empty()) return "";
  std::string body =
      "<section id=\"batch\"><h2>Training: time, fetch stall and energy per sample by batch size</h2><p>Where a sweep "
      "varied the batch size: each epoch's time, fetch stall and energy divided by its samples (medians over warm "
      "epochs), so batch sizes compare on one scale. Every chart starts at zero.</p>\n";
  for (std::size_t g = 0; g < section.size(); ++g) {
    const json& group = section[g];
    const std::string index = std::to_string(g);
    body += fmt::format("<h3>{}</h3>\n", escape(group["label"].get<std::string>())) + group_sentence(group);
    body += "<div class=\"chart-row\">\n";
    body += canvases.next("batch-time:" + index,
                          group["has_stall"].get<bool>()
                              ? "Time per sample (ms) against batch size: fetch stall and the rest of the epoch"
                              : "Time per sample (ms) against batch size (no fetch stall recorded)",
                          490, 320);
    if (group["has_energy"].get<bool>())
      body += canvases.next("batch-energy:" + index, "Energy per sample (mJ) against batch size", 490, 320);
    body += "</div>\n<details><summary>Table</summary>" +
            report_html::table(group["rows"],
                               {{"batch", "batch"},
                                {"time_per_sample_ms", "time per sample (ms)"},
                                {"stall_per_sample_ms", "fetch stall per sample (ms)"},
                                {"energy_per_sample_mj", "energy per sample (mJ)"},
                                {"samples_per_s", "samples/s"},
                                {"epoch_s", "epoch (s)"},
                                {"samples", "samples per epoch"},
                                {"epochs", "epochs"}},
                               "table-batch-" + index) +
            "</details>\n";
  }
  return body + "</section>\n";
}

}  // namespace jetchar::analysis
