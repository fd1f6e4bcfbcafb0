// The log API's formats print what spdlog's fmt "{}" formats printed (the
// expected strings below were recorded from fmt 9.1, Debian 12's, before the
// change), and lines below the level are neither formatted nor written.
#include "qinfer/core/logging.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "absl/strings/string_view.h"

namespace qinfer {
namespace {

enum Plain { kThree = 3 };

TEST(LogFormatTest, VPrintsDoublesInTheirShortestRoundTripFormAsFmtDid) {
  EXPECT_EQ(FormatLogLine("x=%v", 0.1), "x=0.1");
  EXPECT_EQ(FormatLogLine("x=%v", 2.0), "x=2");
  EXPECT_EQ(FormatLogLine("x=%v", 1e-5), "x=1e-05");
  EXPECT_EQ(FormatLogLine("x=%v", 0.0001), "x=0.0001");
  EXPECT_EQ(FormatLogLine("x=%v", 1234567.0), "x=1234567");
  EXPECT_EQ(FormatLogLine("x=%v", 1e15), "x=1000000000000000");
  EXPECT_EQ(FormatLogLine("x=%v", 1e16), "x=1e+16");
  EXPECT_EQ(FormatLogLine("x=%v", 123456789.125), "x=123456789.125");
  EXPECT_EQ(FormatLogLine("x=%v", -0.0), "x=-0");
  EXPECT_EQ(FormatLogLine("x=%v", 1.0 / 3), "x=0.3333333333333333");
  EXPECT_EQ(FormatLogLine("x=%v", 100000.0), "x=100000");
  EXPECT_EQ(FormatLogLine("x=%v y=%v", 0.1f, 3.25f), "x=0.1 y=3.25");
}

TEST(LogFormatTest, FixedPrecisionPrintsAsFmtDid) {
  EXPECT_EQ(FormatLogLine("%.1f %.3f %.0f", 0.1, 0.1, 0.1), "0.1 0.100 0");
  EXPECT_EQ(FormatLogLine("%.1f %.3f %.0f", 2.0, 2.0, 2.0), "2.0 2.000 2");
  EXPECT_EQ(FormatLogLine("%.1f %.3f %.0f", 123456789.125, 123456789.125, 123456789.125),
            "123456789.1 123456789.125 123456789");
  EXPECT_EQ(FormatLogLine("%.1f %.3f %.0f", -0.0, -0.0, -0.0), "-0.0 -0.000 -0");
  EXPECT_EQ(FormatLogLine("%.1f %.0f", 2.5, 2.5), "2.5 2");
  EXPECT_EQ(FormatLogLine("%.2f %.2f %.0f %.0f %.1f", 0.125, 0.375, 0.5, 3.5, 0.25), "0.12 0.38 0 4 0.2");
  EXPECT_EQ(FormatLogLine("%.3f", 0.00123), "0.001");
}

TEST(LogFormatTest, VPrintsBoolCharIntegersEnumsAndStringsAsFmtDid) {
  EXPECT_EQ(FormatLogLine("%v %v", true, false), "true false");
  EXPECT_EQ(FormatLogLine("%v", 'x'), "x");
  EXPECT_EQ(FormatLogLine("%v %v", static_cast<signed char>(-5), static_cast<unsigned char>(200)), "-5 200");
  EXPECT_EQ(FormatLogLine("%v %v %v %v", size_t{18446744073709551615u}, INT64_MIN, UINT64_MAX, -42),
            "18446744073709551615 -9223372036854775808 18446744073709551615 -42");
  EXPECT_EQ(FormatLogLine("%v", kThree), "3");
  const std::string_view view = "view";
  const std::string str = "str";
  const char* cstr = "cstr";
  const absl::string_view absl_view = "absl";
  EXPECT_EQ(FormatLogLine("%v %v %v %v %s", view, str, cstr, "lit", absl_view), "view str cstr lit absl");
}

TEST(LogFormatTest, PercentAndBracesAreLiteral) {
  EXPECT_EQ(FormatLogLine("braces {} percent 100%% [%v]", 1), "braces {} percent 100% [1]");
  EXPECT_EQ(FormatLogLine("no arguments 50%%"), "no arguments 50%");
  EXPECT_EQ(FormatLogLine("%d %s %v", 7, std::string("s"), 8), "7 s 8");
}

TEST(LogTest, WritesLinesAtOrAboveTheLevelAndFormatsNothingBelowIt) {
  std::ostringstream out;
  Log log = CaptureLogForTest("logging_test", out);
  log.Info("event=start n=%v", 3);
  log.Write(LogLevel::kWarn, "pre-formatted {} %v");
  log.At(LogLevel::kError, "event=x ok=%v", false);
  log.Flush();
  EXPECT_EQ(out.str(), "info event=start n=3\nwarning pre-formatted {} %v\nerror event=x ok=false\n");
  EXPECT_TRUE(log.Enabled(LogLevel::kTrace));

  // The process level applies to the named loggers.
  Log named = Logger("logging_test_named");
  SetLogLevel("warn");
  EXPECT_FALSE(named.Enabled(LogLevel::kInfo));
  EXPECT_TRUE(named.Enabled(LogLevel::kWarn));
  SetLogLevel("info");
  EXPECT_TRUE(named.Enabled(LogLevel::kInfo));
  EXPECT_FALSE(named.Enabled(LogLevel::kDebug));
}

}  // namespace
}  // namespace qinfer
