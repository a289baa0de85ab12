// `jetchar report` through the real executable: several results of two board kinds make one report
// with a comparison page, budgets add their sentence to "What to pick", and no output may be one of
// the inputs (a store given second is as safe as one given first).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "cli/exit_code.h"
#include "tests/cli/cli_integration.h"

namespace jetchar::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ReportCommand : public CliIntegration {
 protected:
  /// The store's runs exported as CSV with another board model in place of its own: the same
  /// configurations measured on a second kind, "RTX 3090".
  fs::path export_as_other_kind(const fs::path& store) {
    const fs::path exported = path("export.csv");
    const Outcome r = run({"results", "export", store.string(), "--csv", "-o", exported.string()});
    EXPECT_EQ(r.code, kOk) << r.text();
    std::string csv = read_text(exported);
    std::istringstream lines(csv);
    std::string header, row;
    std::getline(lines, header);
    std::getline(lines, row);
    // A CSV line's fields (RFC 4180 quotes: a reason holds commas).
    const auto fields = [](const std::string& line) {
      std::vector<std::string> out(1);
      bool quoted = false;
      for (char c : line) {
        if (c == '"') quoted = !quoted;
        else if (c == ',' && !quoted) out.emplace_back();
        else out.back() += c;
      }
      return out;
    };
    // The device column is the board model (results/export.cpp): its value in the first row.
    const auto names = fields(header), values = fields(row);
    const auto column = std::find(names.begin(), names.end(), "device") - names.begin();
    EXPECT_LT(static_cast<std::size_t>(column), values.size()) << header << "\n" << row;
    const std::string model = static_cast<std::size_t>(column) < values.size() ? values[column] : "";
    EXPECT_FALSE(model.empty()) << header << "\n" << row;
    for (auto found = csv.find(model); !model.empty() && found != std::string::npos; found = csv.find(model, found)) {
      csv.replace(found, model.size(), "RTX 3090");
    }
    return write("rtx.csv", csv);
  }
};

TEST_F(ReportCommand, SeveralResultsOfTwoKindsMakeOneReportWithAComparisonPage) {
  const fs::path store = store_copy();
  const fs::path rtx = export_as_other_kind(store);
  const fs::path page = path("out.html");
  const Outcome r = run({"report", store.string(), rtx.string(), "--max-time", "1000", "-o", page.string()});
  ASSERT_EQ(r.code, kOk) << r.text();
  EXPECT_THAT(r.out, HasSubstr("wrote " + page.string()));
  const std::string html = read_text(page);
  EXPECT_THAT(html, HasSubstr("<title>jetchar report: " + store.string() + ", " + rtx.string() + "</title>"));
  EXPECT_THAT(html, HasSubstr("<section id=\"comparison\"><h2>Board kinds side by side"));
  EXPECT_THAT(html, HasSubstr("data-chart=\"comparison:0\""));
  EXPECT_THAT(html, HasSubstr("RTX 3090: at its fastest mode <strong>"));
  EXPECT_THAT(html, Not(HasSubstr("No configuration was measured on two board kinds")));
  EXPECT_THAT(html, HasSubstr(" board=RTX 3090 within epoch time &lt;= 1000 s: pick <strong>"));

  // Against the other kind; a kind that measured nothing is bad input naming the kinds.
  EXPECT_EQ(run({"report", store.string(), rtx.string(), "--baseline", "RTX 3090", "-o", page.string()}).code, kOk);
  EXPECT_THAT(read_text(page), HasSubstr("(baseline RTX 3090)</h3>"));
  const Outcome nano = run({"report", store.string(), rtx.string(), "--baseline", "Nano", "-o", page.string()});
  EXPECT_EQ(nano.code, kBadInput) << nano.text();
  EXPECT_THAT(nano.err, HasSubstr("--baseline 'Nano' measured nothing here; the board kinds are "));
  // A baseline needs kinds to compare.
  const Outcome alone = run({"report", store.string(), "--baseline", "RTX 3090", "-o", page.string()});
  EXPECT_EQ(alone.code, kUsage) << alone.text();
  EXPECT_THAT(alone.err, HasSubstr("--baseline goes with two or more RESULTS"));
  // Two stores of one kind are one report that says there is nothing to compare.
  EXPECT_EQ(run({"report", store.string(), store_copy("again").string(), "-o", page.string()}).code, kOk);
  EXPECT_THAT(read_text(page), HasSubstr("measured one board kind"));
}

// -o may be none of the inputs, whichever position the input has; nothing is written and the store
// is kept byte for byte.
TEST_F(ReportCommand, AnOutputOntoAnyInputIsRefusedNamingIt) {
  const fs::path store = store_copy();
  const fs::path rtx = export_as_other_kind(store);
  const auto before = tree(store);
  const auto rtx_before = read_text(rtx);
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"report", rtx.string(), store.string(), "-o", (store / "results.db").string()},
           {"report", store.string(), rtx.string(), "-o", (store / "results.db").string()}}) {
    const Outcome r = run(args);
    EXPECT_EQ(r.code, kBadInput) << r.text();
    EXPECT_THAT(r.err, HasSubstr("-o " + (store / "results.db").string() + " is results.db of the input " +
                                 store.string() + "; nothing was written"));
  }
  const Outcome onto_export = run({"report", store.string(), rtx.string(), "-o", rtx.string()});
  EXPECT_EQ(onto_export.code, kBadInput) << onto_export.text();
  EXPECT_THAT(onto_export.err, HasSubstr("is the input " + rtx.string() + "; nothing was written"));
  EXPECT_EQ(tree(store), before);
  EXPECT_EQ(read_text(rtx), rtx_before);
}

// --max-latency takes a latency as `analyze choose --max-latency` does.
TEST_F(ReportCommand, ALatencyBudgetIsParsedAsAnalyzeChooseParsesIt) {
  const fs::path runs = write("infer.csv",
                              "workload,mode,task,batch,latency_avg_ms,latency_p99_ms,throughput_samples_per_s,"
                              "energy_per_query_j\n"
                              "bert,MAXN,INFER,1,2,3,500,0.02\nbert,15W,INFER,1,4,6,250,0.015\n");
  const fs::path page = path("infer.html");
  const Outcome ok = run({"report", runs.string(), "--max-latency", "0.005s", "-o", page.string()});
  ASSERT_EQ(ok.code, kOk) << ok.text();
  EXPECT_THAT(read_text(page), HasSubstr("bert inference within p99 latency &lt;= 5 ms: pick <strong>MAXN</strong>"));
  const Outcome bad = run({"report", runs.string(), "--max-latency", "fast", "-o", page.string()});
  EXPECT_EQ(bad.code, kUsage) << bad.text();
  EXPECT_THAT(bad.err, HasSubstr("--max-latency 'fast' is not a latency"));
}

}  // namespace
}  // namespace jetchar::cli
