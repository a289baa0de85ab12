#include "jetson/meters/wt300_protocol.h"

#include <gtest/gtest.h>

namespace jetchar::jetson::meters {
namespace {

TEST(Wt300Protocol, ParsesNr3ValuesWithErrorMarkers) {
  const auto values = parse_wt300_values("+1.9012E+01,+6.3160E-01,+1.2008E+01,NAN,INF,9.91E+37\r", 6);
  ASSERT_TRUE(values);
  EXPECT_DOUBLE_EQ(*(*values)[0], 19.012);
  EXPECT_DOUBLE_EQ(*(*values)[1], 0.6316);
  EXPECT_DOUBLE_EQ(*(*values)[2], 12.008);
  EXPECT_FALSE((*values)[3]);
  EXPECT_FALSE((*values)[4]);
  EXPECT_FALSE((*values)[5]);
}

TEST(Wt300Protocol, RejectsWrongCountsAndNonNumbers) {
  EXPECT_FALSE(parse_wt300_values("1.0,2.0", 3));
  EXPECT_FALSE(parse_wt300_values("1.0,2.0,3.0,4.0", 3));
  EXPECT_FALSE(parse_wt300_values("1.0,volts,3.0", 3));
  EXPECT_FALSE(parse_wt300_values("", 1));
  EXPECT_FALSE(parse_wt300_values("1.0,,3.0", 3));
  EXPECT_TRUE(parse_wt300_values("-1.5E+00", 1));
}

TEST(Wt300Protocol, FormatsAsTheMeterDoes) {
  const std::vector<std::optional<double>> values{19.0, std::nullopt, 0.125};
  const std::string line = format_wt300_values(values);
  EXPECT_EQ(line, "+1.9000E+01,NAN,+1.2500E-01");
  const auto back = parse_wt300_values(line, 3);
  ASSERT_TRUE(back);
  EXPECT_DOUBLE_EQ(*(*back)[2], 0.125);
}

TEST(Wt300Protocol, ParsesScpiHeadersInShortAndLongForm) {
  const auto cmd = parse_scpi_command(":NUMeric:NORMal:ITEM3 P,1");
  ASSERT_TRUE(cmd);
  ASSERT_EQ(cmd->mnemonics.size(), 3u);
  EXPECT_TRUE(scpi_mnemonic_matches(cmd->mnemonics[0], "NUMeric"));
  EXPECT_TRUE(scpi_mnemonic_matches(cmd->mnemonics[1], "NORMal"));
  EXPECT_TRUE(scpi_mnemonic_matches(cmd->mnemonics[2], "ITEM", true));
  EXPECT_EQ(cmd->arguments, "P,1");
  EXPECT_FALSE(cmd->query);
  const auto q = parse_scpi_command(":num:norm:val?");
  ASSERT_TRUE(q);
  EXPECT_TRUE(q->query);
  EXPECT_TRUE(scpi_mnemonic_matches(q->mnemonics[2], "VALue"));
  EXPECT_FALSE(scpi_mnemonic_matches("VALU", "VALue"));
  const auto idn = parse_scpi_command("*IDN?");
  ASSERT_TRUE(idn);
  EXPECT_TRUE(idn->common);
  EXPECT_FALSE(parse_scpi_command(":NUM::VAL?"));
  EXPECT_FALSE(parse_scpi_command(":NU-M"));
  EXPECT_FALSE(parse_scpi_command(""));
}

}  // namespace
}  // namespace jetchar::jetson::meters
