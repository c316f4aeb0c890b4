#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs aprof-trms into a temporary directory (make install DESTDIR=...)
# and checks what a user gets: the tool, aprof-trms.h beside Valgrind's
# headers (it compiles), the manual page (man renders it, also through each
# command's alias), and every analysis command on PATH, run from there
# (--version, --help, and one real run on a synthetic report); then that
# make uninstall removes every file install put.
#
# Copyright (C) 2026, the aprof-trms authors.
#
# Run by `make check`, which exports MAKE, PYTHON3, APROF_SRCDIR,
# APROF_BUILDDIR, APROF_VERSION, APROF_COMMANDS (the names in
# ANALYSIS_COMMANDS) and the configured install directories APROF_BINDIR,
# APROF_MANDIR, APROF_PKGDATADIR, APROF_VALGRIND_INCLUDEDIR and
# APROF_VALGRIND_TOOLDIR. Only this test:
#   make check TESTS=tests/install/check-install.sh
set -u

for v in MAKE PYTHON3 APROF_SRCDIR APROF_BUILDDIR APROF_VERSION APROF_COMMANDS \
         APROF_BINDIR APROF_MANDIR APROF_PKGDATADIR APROF_VALGRIND_INCLUDEDIR \
         APROF_VALGRIND_TOOLDIR APROF_VALGRIND_PLATFORM; do
  eval "test -n \"\${$v:-}\"" || { echo "ERROR: $v is not set: run this test through make check"; exit 99; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/aprof-install.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

echo "== make install DESTDIR=$dest"
$MAKE -s -C "$APROF_BUILDDIR" install DESTDIR="$dest" >"$tmp/install.log" 2>&1 || {
  cat "$tmp/install.log"; echo "FAIL: make install"; exit 1; }

bindir=$dest$APROF_BINDIR
for f in "$dest$APROF_VALGRIND_TOOLDIR/aprof-trms-$APROF_VALGRIND_PLATFORM" \
         "$dest$APROF_VALGRIND_INCLUDEDIR/aprof-trms.h" \
         "$dest$APROF_MANDIR/man1/aprof-trms.1" \
         "$dest$APROF_PKGDATADIR/python/aprof_trms/__init__.py" \
         "$dest$APROF_PKGDATADIR/python/aprof_trms/cli.py"; do
  test -f "$f" || fail "not installed: $f"
done

echo "== aprof-trms.h compiles as <valgrind/aprof-trms.h>"
printf '#include <valgrind/aprof-trms.h>\nint main(void) { APROF_TRMS_STOP_COLLECTION; APROF_TRMS_START_COLLECTION; return 0; }\n' \
  >"$tmp/client.c"
# The installed copy comes first; Valgrind's own valgrind.h from the system.
${CC:-cc} -fsyntax-only -I"$dest$APROF_VALGRIND_INCLUDEDIR/.." "$tmp/client.c" || \
  fail "a program including <valgrind/aprof-trms.h> does not compile"

echo "== manual page"
if ! command -v man >/dev/null 2>&1; then
  fail "man not found (Debian: apt-get install man-db)"
else
  LC_ALL=C.UTF-8 MANWIDTH=100 man --warnings -l "$dest$APROF_MANDIR/man1/aprof-trms.1" \
    >"$tmp/man.txt" 2>"$tmp/man.err" || fail "man -l cannot render aprof-trms.1"
  test -s "$tmp/man.err" && { cat "$tmp/man.err"; fail "man -l warns about aprof-trms.1"; }
  grep -q "aprof-trms $APROF_VERSION" "$tmp/man.txt" || fail "the manual page does not give version $APROF_VERSION"
fi

echo "== a synthetic report"
reports=$tmp/reports
mkdir -p "$reports"
# The source tree's package writes it (synthetic.py checks what it writes
# with the reader); the installed commands then read it.
(cd "$APROF_SRCDIR/tests/scripts" && PYTHONPATH="$APROF_SRCDIR/scripts" "$PYTHON3" -c '
import sys, synthetic
synthetic.write_report(sys.argv[1], [
    synthetic.Routine("quadratic", synthetic.COSTS["n^2"], synthetic.sizes(12)),
    synthetic.Routine("linear", synthetic.COSTS["n"], synthetic.sizes(12)),
])' "$reports/aprof-trms.out.1") || { echo "ERROR: cannot write the synthetic report"; exit 99; }

# The installed commands run from an empty directory, with nothing of the
# source tree on the Python path: they must find their own package.
mkdir -p "$tmp/work"
cd "$tmp/work" || exit 99
unset PYTHONPATH
export PYTHONDONTWRITEBYTECODE=1

for name in $APROF_COMMANDS; do
  cmd=aprof_$name
  echo "== $cmd"
  test -x "$bindir/$cmd" || { fail "not installed: $bindir/$cmd"; continue; }
  out=$(PATH="$bindir:$PATH" "$cmd" --version 2>&1)
  test "$out" = "$cmd (aprof-trms) $APROF_VERSION" || \
    fail "$cmd --version printed '$out', expected '$cmd (aprof-trms) $APROF_VERSION'"
  PATH="$bindir:$PATH" "$cmd" --help >"$tmp/help.txt" 2>&1 || fail "$cmd --help failed"
  grep -q "^usage: $cmd " "$tmp/help.txt" || { cat "$tmp/help.txt"; fail "$cmd --help: no usage line"; }
  if command -v man >/dev/null 2>&1; then
    LC_ALL=C.UTF-8 MANWIDTH=100 man -M "$dest$APROF_MANDIR" "$cmd" 2>&1 | grep -qx " *$cmd" || \
      fail "man $cmd does not show the section on $cmd (.SS $cmd)"
  fi
done

echo "== real runs of the installed commands"
run() {
  # run EXPECTED_STATUS COMMAND ARGS...: the command from the installed bindir.
  expected=$1; shift
  PATH="$bindir:$PATH" "$@" >"$tmp/out.txt" 2>"$tmp/err.txt"
  status=$?
  if test "$status" -ne "$expected"; then
    cat "$tmp/out.txt" "$tmp/err.txt"
    fail "$* exited $status, expected $expected"
    return 1
  fi
}
run 0 aprof_rank "$reports" && {
  # The quadratic routine ranks first (steepest growth).
  first=$(grep -E '^ *1 ' "$tmp/out.txt" | head -n 1)
  case $first in *quadratic*) ;; *) cat "$tmp/out.txt"; fail "aprof_rank: quadratic is not first" ;; esac
}
run 0 aprof_plot --quiet -r quadratic -o "$tmp/plots" "$reports" && {
  test -s "$tmp/plots/quadratic-cost.png" || fail "aprof_plot wrote no quadratic-cost.png"
  test -s "$tmp/plots/summary.txt" || fail "aprof_plot wrote no summary.txt"
}
run 0 aprof_charts --quiet -o "$tmp/charts" "$reports" && {
  test -s "$tmp/charts/charts.txt" || fail "aprof_charts wrote no charts.txt"
}
run 0 aprof_regress --baseline "$reports" --candidate "$reports" && {
  grep -q "^OK: no growth regression" "$tmp/out.txt" || fail "aprof_regress: no OK verdict"
}
run 0 aprof_annotate --min-share 0 "$reports" && {
  grep -q "quadratic" "$tmp/out.txt" || fail "aprof_annotate: no line for quadratic"
}
run 0 aprof_html -o "$tmp/report.html" "$reports" && {
  # The installed page assets are inlined: the script's last statement is there.
  grep -q "document.body.dataset.ready" "$tmp/report.html" || fail "aprof_html: page without its script"
}
run 1 aprof_contexts "$reports" && {
  # Reports of runs without --collect-context=yes: it says how to get contexts.
  grep -q "^aprof_contexts: error: .*--collect-context=yes" "$tmp/err.txt" || \
    fail "aprof_contexts: no hint to rerun with --collect-context=yes"
}
run 1 aprof_rank "$tmp/no-such-report" && {
  grep -q "^aprof_rank: error: " "$tmp/err.txt" || fail "aprof_rank: error message without its name"
}

echo "== make uninstall"
cd "$tmp" || exit 99
$MAKE -s -C "$APROF_BUILDDIR" uninstall DESTDIR="$dest" >"$tmp/uninstall.log" 2>&1 || {
  cat "$tmp/uninstall.log"; fail "make uninstall"; }
left=$(find "$dest" -type f -o -type l)
test -z "$left" || fail "make uninstall left: $left"

test "$failures" -eq 0 || exit 1
echo "PASS: installed files and commands"
