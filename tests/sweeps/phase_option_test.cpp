#include "sweeps/phase_option.h"
#include "results/setting_values.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace jetchar::sweeps {
namespace {

using ::testing::HasSubstr;

TEST(PhaseOptionTest, ReadsEveryKeyAndWritesTheSameText) {
  const auto phase = parse_phase_option("seq=128,steps=900,batch=64,accumulate=4,lr=0.006,warmup=0.2843");
  EXPECT_EQ(phase.sequence_length(), 128u);
  EXPECT_EQ(phase.steps(), 900u);
  EXPECT_EQ(phase.batch_size(), 64u);
  EXPECT_EQ(phase.accumulate(), 4u);
  EXPECT_DOUBLE_EQ(phase.learning_rate(), 0.006);
  EXPECT_DOUBLE_EQ(phase.warmup_proportion(), 0.2843);
  EXPECT_EQ(jetchar::results::phase_text(phase), "seq=128,steps=900,batch=64,accumulate=4,lr=0.006,warmup=0.2843");
  // The optional keys fall back to the workload's: absent.
  const auto short_phase = parse_phase_option("steps=20,seq=512");
  EXPECT_EQ(short_phase.batch_size(), 0u);
  EXPECT_FALSE(short_phase.has_learning_rate());
  EXPECT_EQ(jetchar::results::phase_text(short_phase), "seq=512,steps=20");
}

TEST(PhaseOptionTest, BadTextNamesThePairAndWhatIsValid) {
  const auto error = [](const char* text) {
    try {
      parse_phase_option(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error("seq=128"), HasSubstr("phase 'seq=128': steps is missing; valid: seq=TOKENS,steps=N (required)"));
  EXPECT_THAT(error("steps=5"), HasSubstr("seq is missing"));
  EXPECT_THAT(error(""), HasSubstr("phase '': '' is not KEY=VALUE"));
  EXPECT_THAT(error("seq=128,steps=5,"), HasSubstr("'' is not KEY=VALUE"));
  EXPECT_THAT(error("seq=4,steps=5"), HasSubstr("seq=4 is not a whole number from 8 to 65536"));
  EXPECT_THAT(error("seq=128,steps=0"), HasSubstr("steps=0 is not a whole number from 1"));
  EXPECT_THAT(error("seq=128,steps=-1"), HasSubstr("steps=-1 is not a whole number"));
  EXPECT_THAT(error("seq=128,steps=5,lr=0"), HasSubstr("lr=0 is not a finite number above 0"));
  EXPECT_THAT(error("seq=128,steps=5,lr=nan"), HasSubstr("lr=nan is not a finite number above 0"));
  EXPECT_THAT(error("seq=128,steps=5,warmup=1"), HasSubstr("warmup=1 is not a fraction from 0 up to"));
  EXPECT_THAT(error("seq=128,steps=5,seq=64"), HasSubstr("seq is given twice"));
  EXPECT_THAT(error("seq=128,steps=5,epochs=2"), HasSubstr("unknown key 'epochs'"));
}

}  // namespace
}  // namespace jetchar::sweeps
