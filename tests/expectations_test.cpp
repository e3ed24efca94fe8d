// Unit tests of the inline-expectation parser and matcher the fixture runner uses.

#include "tests/expectations.h"

#include <gtest/gtest.h>

namespace gpulint::expect {
namespace {

TEST(ExpectationParser, TrailingCommentAppliesToItsOwnLine) {
  const auto parsed = parse_expectations("x = 1\ny = loss.item()  # expect: GL101\n");
  ASSERT_TRUE(parsed.errors.empty());
  ASSERT_EQ(parsed.expectations.size(), 1u);
  EXPECT_EQ(parsed.expectations[0].code, "GL101");
  EXPECT_EQ(parsed.expectations[0].line, 2u);
  EXPECT_EQ(parsed.expectations[0].written_on, 2u);
  EXPECT_FALSE(parsed.expectations[0].column.has_value());
  EXPECT_TRUE(parsed.expectations[0].fragment.empty());
}

TEST(ExpectationParser, OwnLineCommentAppliesToTheNextCodeLine) {
  const auto parsed = parse_expectations(
      "for b in loader:\n"
      "    # expect: GL101\n"
      "\n"
      "    # the sync happens here\n"
      "    print(loss.item())\n");
  ASSERT_TRUE(parsed.errors.empty());
  ASSERT_EQ(parsed.expectations.size(), 1u);
  EXPECT_EQ(parsed.expectations[0].line, 5u);
  EXPECT_EQ(parsed.expectations[0].written_on, 2u);
}

TEST(ExpectationParser, SeveralCodes) {
  const auto parsed = parse_expectations("print(loss.item())  # expect: GL101 GL104\n");
  ASSERT_TRUE(parsed.errors.empty());
  ASSERT_EQ(parsed.expectations.size(), 2u);
  EXPECT_EQ(parsed.expectations[0].code, "GL101");
  EXPECT_EQ(parsed.expectations[1].code, "GL104");
  EXPECT_EQ(parsed.expectations[1].line, 1u);
}

TEST(ExpectationParser, ColumnAndFragment) {
  const auto parsed =
      parse_expectations("v = loss.item()  # expect: GL101@5 \"forces a sync\" GL104@1\n");
  ASSERT_TRUE(parsed.errors.empty()) << parsed.errors[0].message;
  ASSERT_EQ(parsed.expectations.size(), 2u);
  EXPECT_EQ(parsed.expectations[0].column, 5u);
  EXPECT_EQ(parsed.expectations[0].fragment, "forces a sync");
  EXPECT_EQ(parsed.expectations[1].column, 1u);
  EXPECT_TRUE(parsed.expectations[1].fragment.empty());
}

TEST(ExpectationParser, FragmentWithoutColumn) {
  const auto parsed = parse_expectations("x  # expect: GL202 \"pin_memory\"\n");
  ASSERT_TRUE(parsed.errors.empty());
  ASSERT_EQ(parsed.expectations.size(), 1u);
  EXPECT_EQ(parsed.expectations[0].fragment, "pin_memory");
}

TEST(ExpectationParser, ExpectationAfterAnExplanationInTheSameComment) {
  const auto parsed = parse_expectations("x = t.item()  # syncs every step  # expect: GL101\n");
  ASSERT_TRUE(parsed.errors.empty());
  ASSERT_EQ(parsed.expectations.size(), 1u);
  EXPECT_EQ(parsed.expectations[0].line, 1u);
}

TEST(ExpectationParser, HashInsideAStringIsNotAComment) {
  const auto parsed = parse_expectations("s = \"# expect: GL101\"\nt = '# expect: GL102'\n");
  EXPECT_TRUE(parsed.errors.empty());
  EXPECT_TRUE(parsed.expectations.empty());
}

TEST(ExpectationParser, OrdinaryCommentsAreIgnored) {
  const auto parsed = parse_expectations("# expected to be silent\nx = 1  # expectation: none\n");
  EXPECT_TRUE(parsed.errors.empty());
  EXPECT_TRUE(parsed.expectations.empty());
}

TEST(ExpectationParser, CrLfLines) {
  const auto parsed = parse_expectations("a = 1\r\n# expect: GL103\r\n\r\nb = 2\r\n");
  ASSERT_TRUE(parsed.errors.empty());
  ASSERT_EQ(parsed.expectations.size(), 1u);
  EXPECT_EQ(parsed.expectations[0].line, 4u);
}

TEST(ExpectationParser, CppMarker) {
  const auto parsed = parse_expectations("// expect: GL101\nauto v = t.item<float>();\n", "//");
  ASSERT_TRUE(parsed.errors.empty());
  ASSERT_EQ(parsed.expectations.size(), 1u);
  EXPECT_EQ(parsed.expectations[0].line, 2u);
}

TEST(ExpectationParser, CppOwnLineSkipsBlockComments) {
  const auto parsed = parse_expectations(
      "// expect: GL103\n/* a note\n * spanning lines */\n// more\n\ntorch::cuda::synchronize();\n",
      "//");
  ASSERT_TRUE(parsed.errors.empty());
  ASSERT_EQ(parsed.expectations.size(), 1u);
  EXPECT_EQ(parsed.expectations[0].line, 6u);
}

TEST(ExpectationParser, CppCodeAfterABlockCommentIsCode) {
  const auto parsed = parse_expectations("// expect: GL101\n/* why */ auto v = t.item();\n", "//");
  ASSERT_EQ(parsed.expectations.size(), 1u);
  EXPECT_EQ(parsed.expectations[0].line, 2u);
}

TEST(ExpectationParser, CppDigitSeparatorIsNotAQuote) {
  const auto parsed = parse_expectations("int n = 1'000; t.item();  // expect: GL101\n", "//");
  ASSERT_TRUE(parsed.errors.empty());
  ASSERT_EQ(parsed.expectations.size(), 1u);
  EXPECT_EQ(parsed.expectations[0].line, 1u);
}

TEST(ExpectationParser, CppMarkersInStringsAndCharsAreIgnored) {
  const auto parsed =
      parse_expectations("auto s = \"// expect: GL101\";\nchar c = '/'; // expect: GL104\n", "//");
  ASSERT_EQ(parsed.expectations.size(), 1u);
  EXPECT_EQ(parsed.expectations[0].code, "GL104");
  EXPECT_EQ(parsed.expectations[0].line, 2u);
}

TEST(ExpectationParser, PythonHashInCppIsNotAMarker) {
  EXPECT_TRUE(parse_expectations("#include <x>  # expect: GL101\n", "//").expectations.empty());
}

TEST(ExpectationParser, MarkerByFileName) {
  EXPECT_EQ(marker_for("fixtures/cpp/train.cpp"), "//");
  EXPECT_EQ(marker_for("a.cc"), "//");
  EXPECT_EQ(marker_for("a.cxx"), "//");
  EXPECT_EQ(marker_for("a.h"), "//");
  EXPECT_EQ(marker_for("a.hpp"), "//");
  EXPECT_EQ(marker_for("train.py"), "#");
  EXPECT_EQ(marker_for("requirements.txt"), "#");
}

TEST(ExpectationParser, MalformedExpectationsAreErrors) {
  EXPECT_EQ(parse_expectations("x  # expect:\n").errors.size(), 1u);
  EXPECT_EQ(parse_expectations("x  # expect: gl101\n").errors.size(), 1u);
  EXPECT_EQ(parse_expectations("x  # expect: GL10\n").errors.size(), 1u);
  EXPECT_EQ(parse_expectations("x  # expect: GL101@\n").errors.size(), 1u);
  EXPECT_EQ(parse_expectations("x  # expect: GL101@0\n").errors.size(), 1u);
  EXPECT_EQ(parse_expectations("x  # expect: GL101x\n").errors.size(), 1u);
  EXPECT_EQ(parse_expectations("x  # expect: GL101 \"open\n").errors.size(), 1u);
  EXPECT_EQ(parse_expectations("x  # expect: \"no code\"\n").errors.size(), 1u);
  EXPECT_EQ(parse_expectations("x  # expect: GL101 because\n").errors.size(), 1u);
  // An own-line expectation with nothing after it.
  EXPECT_EQ(parse_expectations("x = 1\n# expect: GL101\n\n# end\n").errors.size(), 1u);
}

TEST(ExpectationMatch, ExactMatchIsOk) {
  const auto parsed = parse_expectations("a\nb  # expect: GL101@4 \"sync\"\n");
  const auto result = match(parsed.expectations, {{"GL101", 2, 4, "forces a sync"}});
  EXPECT_TRUE(result.ok());
}

TEST(ExpectationMatch, MissingAndUnexpected) {
  const auto parsed = parse_expectations("a  # expect: GL101\nb\n");
  const auto result = match(parsed.expectations, {{"GL101", 2, 1, "m"}, {"GL104", 1, 1, "p"}});
  ASSERT_EQ(result.missing.size(), 1u);
  EXPECT_EQ(result.missing[0].line, 1u);
  ASSERT_EQ(result.unexpected.size(), 2u);
}

TEST(ExpectationMatch, ColumnAndFragmentMustAgree) {
  const auto parsed = parse_expectations("a  # expect: GL101@3 \"sync\"\n");
  EXPECT_FALSE(match(parsed.expectations, {{"GL101", 1, 4, "a sync"}}).ok());
  EXPECT_FALSE(match(parsed.expectations, {{"GL101", 1, 3, "other"}}).ok());
  EXPECT_TRUE(match(parsed.expectations, {{"GL101", 1, 3, "a sync"}}).ok());
}

TEST(ExpectationMatch, OneExpectationPerFinding) {
  // Two findings of one code on a line need the code twice.
  const auto once = parse_expectations("a  # expect: GL101\n");
  EXPECT_FALSE(match(once.expectations, {{"GL101", 1, 1, ""}, {"GL101", 1, 9, ""}}).ok());
  const auto twice = parse_expectations("a  # expect: GL101 GL101\n");
  EXPECT_TRUE(match(twice.expectations, {{"GL101", 1, 1, ""}, {"GL101", 1, 9, ""}}).ok());
}

TEST(ExpectationMatch, PreciseExpectationsChooseFirst) {
  // The loose expectation, written first, must not take the finding at column 9.
  const auto parsed = parse_expectations("a  # expect: GL101 GL101@9\n");
  EXPECT_TRUE(match(parsed.expectations, {{"GL101", 1, 9, ""}, {"GL101", 1, 1, ""}}).ok());
}

TEST(ExpectationMatch, NoExpectationsMeansSilent) {
  EXPECT_TRUE(match({}, {}).ok());
  EXPECT_FALSE(match({}, {{"GL201", 3, 10, "num_workers"}}).ok());
}

TEST(ExpectationParser, KnownMissAndKnownFalseMarkers) {
  const auto parsed = parse_expectations(
      "a = t.item()  # known-miss: GL101\n"
      "# known-false: GL104 GL201@3\n"
      "print(step)\n"
      "b = t.cpu()  # expect: GL102\n");
  ASSERT_TRUE(parsed.errors.empty()) << parsed.errors[0].message;
  ASSERT_EQ(parsed.expectations.size(), 4u);
  EXPECT_EQ(parsed.expectations[0].kind, Kind::KnownMiss);
  EXPECT_EQ(parsed.expectations[0].line, 1u);
  EXPECT_EQ(parsed.expectations[1].kind, Kind::KnownFalse);
  EXPECT_EQ(parsed.expectations[1].code, "GL104");
  EXPECT_EQ(parsed.expectations[1].line, 3u);
  EXPECT_EQ(parsed.expectations[2].kind, Kind::KnownFalse);
  EXPECT_EQ(parsed.expectations[2].column, 3u);
  EXPECT_EQ(parsed.expectations[3].kind, Kind::Expect);
}

TEST(ExpectationParser, SeveralMarkersInOneComment) {
  const auto parsed = parse_expectations(
      "print(loss.item())  # syncs  # expect: GL101  # known-miss: GL104 \"print\"\n");
  ASSERT_TRUE(parsed.errors.empty()) << parsed.errors[0].message;
  ASSERT_EQ(parsed.expectations.size(), 2u);
  EXPECT_EQ(parsed.expectations[0].kind, Kind::Expect);
  EXPECT_EQ(parsed.expectations[0].code, "GL101");
  EXPECT_EQ(parsed.expectations[1].kind, Kind::KnownMiss);
  EXPECT_EQ(parsed.expectations[1].code, "GL104");
  EXPECT_EQ(parsed.expectations[1].fragment, "print");
}

TEST(ExpectationParser, MalformedKnownMarkersAreErrors) {
  EXPECT_EQ(parse_expectations("x  # known-miss:\n").errors.size(), 1u);
  EXPECT_EQ(parse_expectations("x  # known-false: GL1\n").errors.size(), 1u);
  // Not a marker: no colon.
  EXPECT_TRUE(parse_expectations("x  # known-miss GL101\n").expectations.empty());
}

TEST(ExpectationMatch, KnownFalseMustBeReported) {
  const auto parsed = parse_expectations("a  # known-false: GL104\n");
  EXPECT_TRUE(match(parsed.expectations, {{"GL104", 1, 1, ""}}).ok());
  const auto gone = match(parsed.expectations, {});
  ASSERT_EQ(gone.missing.size(), 1u);
  EXPECT_EQ(gone.missing[0].kind, Kind::KnownFalse);
}

TEST(ExpectationMatch, KnownMissMustStayUnreported) {
  const auto parsed = parse_expectations("a  # known-miss: GL101\n");
  EXPECT_TRUE(match(parsed.expectations, {}).ok());
  const auto fixed = match(parsed.expectations, {{"GL101", 1, 5, ""}});
  EXPECT_FALSE(fixed.ok());
  ASSERT_EQ(fixed.now_reported.size(), 1u);
  EXPECT_EQ(fixed.now_reported[0].code, "GL101");
  EXPECT_TRUE(fixed.unexpected.empty());
  EXPECT_TRUE(fixed.missing.empty());
}

TEST(ExpectationMatch, KnownMissNextToAnExpectOfTheSameCode) {
  // Two syncs on a line, one found: the expect takes the finding, the known-miss stays absent.
  const auto parsed = parse_expectations("a  # expect: GL101  # known-miss: GL101\n");
  EXPECT_TRUE(match(parsed.expectations, {{"GL101", 1, 1, ""}}).ok());
  EXPECT_FALSE(match(parsed.expectations, {{"GL101", 1, 1, ""}, {"GL101", 1, 9, ""}}).ok());
}

TEST(ExpectationTally, PrecisionAndRecall) {
  const auto parsed = parse_expectations(
      "a  # expect: GL101 GL101 GL101  # known-false: GL101\n"
      "b  # known-miss: GL104\n");
  const auto by_code = tally(parsed.expectations);
  ASSERT_EQ(by_code.size(), 2u);
  const Tally& gl101 = by_code.at("GL101");
  EXPECT_EQ(gl101.tp, 3u);
  EXPECT_EQ(gl101.fp, 1u);
  EXPECT_EQ(gl101.fn, 0u);
  EXPECT_DOUBLE_EQ(*gl101.precision(), 0.75);
  EXPECT_DOUBLE_EQ(*gl101.recall(), 1.0);
  const Tally& gl104 = by_code.at("GL104");
  EXPECT_FALSE(gl104.precision().has_value());
  EXPECT_DOUBLE_EQ(*gl104.recall(), 0.0);
  const std::string table = format_precision_table(by_code);
  EXPECT_NE(table.find("GL101"), std::string::npos);
  EXPECT_NE(table.find("0.750"), std::string::npos);
  EXPECT_NE(table.find("all"), std::string::npos);
}

}  // namespace
}  // namespace gpulint::expect
