#!/usr/bin/env bash
# Runs the test binary one suite at a time with a time limit each, so that a suite that hangs on
# a machine (a GPU driver, a fork) is named instead of stalling the whole run.
#   scripts/gpu/run_tests_by_suite.sh BINARY [SECONDS_PER_SUITE]
binary=$1
limit=${2:-60}
failed=0
for suite in $("$binary" --gtest_list_tests | grep -v '^ ' | sed 's/\.$//'); do
  start=$SECONDS
  timeout "$limit" "$binary" --gtest_brief=1 --gtest_filter="$suite.*" > /tmp/suite.log 2>&1
  rc=$?
  passed=$(grep -oE '\[  PASSED  \] [0-9]+' /tmp/suite.log | grep -oE '[0-9]+$')
  skipped=$(grep -oE '\[  SKIPPED \] [0-9]+' /tmp/suite.log | grep -oE '[0-9]+$')
  if [ $rc -ne 0 ]; then
    failed=$((failed + 1))
    echo "FAIL rc=$rc $((SECONDS - start))s $suite"
    grep -E "Failure|FAILED|error" -A3 /tmp/suite.log | head -20 | sed 's/^/    /'
  else
    echo "ok   $((SECONDS - start))s $suite passed=${passed:-0} skipped=${skipped:-0}"
  fi
done
echo "suites failed: $failed"
