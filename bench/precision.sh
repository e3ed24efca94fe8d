#!/usr/bin/env bash
# Precision and recall of gpulint on the realistic corpus (fixtures/python/realistic/**), from the
# corpus's ground-truth markers: `expect` = true positive, `known-false` = false positive,
# `known-miss` = false negative (tests/expectations.h). Builds the tests, runs the fixture
# cases (so the markers are known to agree with today's gpulint) and RealisticCorpus.
# PrecisionAndRecall, and prints the per-code table.
#
#   bench/precision.sh [BUILD_DIR] [REPORT_FILE]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
report=${2:-$build/precision_report.txt}

cmake --build "$build" --target gpulint_tests >/dev/null
tests="$build/tests/gpulint_tests"
# The markers only mean something while every realistic fixture passes.
if ! "$tests" --gtest_filter='Python/PythonFixture.MatchesExpectations/realistic_*' --gtest_brief=1; then
  echo "precision.sh: some realistic fixtures disagree with their markers; fix them first" >&2
  exit 1
fi
GPULINT_PRECISION_REPORT="$report" "$tests" --gtest_filter='RealisticCorpus.PrecisionAndRecall' >/dev/null
cat "$report"
echo "(written to $report)"
