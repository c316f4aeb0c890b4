#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Smoke test of the Valgrind tool, run from the build tree (not installed).
# Run by `make check`, which exports VALGRIND, APROF_VGLIB (the private
# VALGRIND_LIB directory), APROF_VG_IN_PLACE, APROF_TOOL_NAME and
# APROF_VALGRIND_PLATFORM.
set -u

: "${VALGRIND:?run this test through make check}"
: "${APROF_VGLIB:?run this test through make check}"
: "${APROF_VG_IN_PLACE:?run this test through make check}"
tool=${APROF_TOOL_NAME:-aprof-trms}
platform=${APROF_VALGRIND_PLATFORM:-amd64-linux}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/aprof-smoke.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

show() {
  echo "--- stderr of: $1"
  cat "$tmp/err"
  echo "---"
}

if test ! -x "$APROF_VGLIB/$tool-$platform"; then
  echo "FAIL: tool binary $APROF_VGLIB/$tool-$platform missing or not executable"
  exit 1
fi

# 1. valgrind --tool=aprof-trms /bin/true with the private VALGRIND_LIB, in
#    an empty directory: the report gets its default name there.
mkdir "$tmp/cwd" || exit 99
(cd "$tmp/cwd" && VALGRIND_LIB=$APROF_VGLIB "$VALGRIND" --tool="$tool" /bin/true) \
  >"$tmp/out" 2>"$tmp/err"
status=$?
set -- "$tmp"/cwd/aprof-trms.out.*
test "$#" -eq 1 && test -f "$1" || fail "no default report aprof-trms.out.<pid> in the working directory"
show "VALGRIND_LIB=$APROF_VGLIB $VALGRIND --tool=$tool /bin/true"
test "$status" -eq 0 || fail "valgrind exited with status $status"
# The banner is "==PID== aprof-trms-VERSION, input-sensitive profiler ...":
# a tool that is not registered makes the launcher print "failed to start
# tool" instead, and a wrong details_name changes the banner.
grep -Eq "^==[0-9]+== $tool-[0-9][^ ,]*, input-sensitive profiler" "$tmp/err" ||
  fail "tool banner '$tool-VERSION, input-sensitive profiler' not found on stderr"
grep -q "failed to start tool" "$tmp/err" && fail "launcher failed to start the tool"

# 2. Through the generated vg-in-place script: the client runs and the tool
#    writes one complete report where --aprof-out-file says.
"$APROF_VG_IN_PLACE" --aprof-out-file="$tmp/report.%p" /bin/echo aprof-smoke-ok \
  >"$tmp/out" 2>"$tmp/err"
status=$?
show "$APROF_VG_IN_PLACE --aprof-out-file=$tmp/report.%p /bin/echo aprof-smoke-ok"
test "$status" -eq 0 || fail "vg-in-place exited with status $status"
test "$(cat "$tmp/out")" = "aprof-smoke-ok" || fail "client stdout was '$(cat "$tmp/out")'"
set -- "$tmp"/report.*
if test "$#" -ne 1 || test ! -f "$1"; then
  fail "expected exactly one report file, found: $*"
else
  head -n 1 "$1" | grep -q "^aprof-trms-report	6\$" || fail "report does not start with the version line"
  tail -n 1 "$1" | grep -q "^end	[0-9][0-9]*\$" || fail "report does not end with an end record"
fi

# 3. A client exit status is passed through.
"$APROF_VG_IN_PLACE" -q --aprof-out-file="$tmp/exit3.%p" /bin/sh -c 'exit 3' >/dev/null 2>"$tmp/err"
status=$?
test "$status" -eq 3 || { show "vg-in-place -q /bin/sh -c 'exit 3'"; fail "expected client exit status 3, got $status"; }

if test "$failures" -ne 0; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "PASS: tool smoke test"
exit 0
