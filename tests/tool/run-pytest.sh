#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs the Python test suites (tool regression tests and the scripts' tests)
# with pytest. Run by `make check`, which exports PYTHON3 (the interpreter
# configure chose), APROF_SRCDIR (the source tree), APROF_TEST_PROGRAMS (the
# built test programs) and what the tool tests need to run the tool from the
# build tree (APROF_VG_IN_PLACE, VALGRIND, ...). Only this test:
#   make check TESTS=tests/tool/run-pytest.sh
# Extra arguments go to pytest (run in $APROF_SRCDIR/tests), e.g. by hand from
# the build directory with the same variables set:
#   sh $srcdir/tests/tool/run-pytest.sh -k signals
set -u

: "${PYTHON3:?run this test through make check}"
: "${APROF_SRCDIR:?run this test through make check}"
: "${APROF_TEST_PROGRAMS:?run this test through make check}"
export APROF_TEST_PROGRAMS

# Nothing is written into the source tree (it may be read-only: distcheck).
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE

tmp=$(mktemp -d "${TMPDIR:-/tmp}/aprof-pytest.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

if ! "$PYTHON3" -c 'import pytest' 2>/dev/null; then
  echo "FAIL: $PYTHON3 cannot import pytest (Debian: apt-get install python3-pytest)"
  exit 1
fi

# Run from the tests directory (short test ids: tool/test_x.py::test_y); tee
# the output to keep the summary line while it streams to the log.
{
  (cd "$APROF_SRCDIR/tests" &&
   "$PYTHON3" -m pytest -v -rfEs -p no:cacheprovider --rootdir=. tool scripts "$@") 2>&1
  echo $? >"$tmp/status"
} | tee "$tmp/out"
status=$(cat "$tmp/status" 2>/dev/null) || status=99

summary=$(grep -E '^=+ .* in [0-9.]+s.* =+$' "$tmp/out" | tail -n 1)
test -n "$summary" || summary="(pytest printed no summary line; exit status $status)"
# fd 9 is the terminal of make check (AM_TESTS_FD_REDIRECT), if open.
if { true >&9; } 2>/dev/null; then
  echo "run-pytest.sh: $summary" >&9
fi

case $status in
  0) exit 0 ;;
  1) exit 1 ;;                                   # some tests failed
  5) echo "FAIL: pytest collected no tests"; exit 1 ;;
  *) echo "ERROR: pytest exit status $status"; exit 99 ;;  # usage/internal error
esac
