// SPDX-License-Identifier: GPL-2.0-or-later
// Glob matching of routine names (--skip-routine): `*` matches any run of
// bytes (the empty one too), `?` exactly one byte, every other byte itself
// (no escapes, no classes: the syntax of Valgrind's VG_(string_match),
// which this replaces). Linear in the name's length for a given pattern,
// with no length limit: Valgrind's matcher backtracks over every `*` (87 s
// for '*c*a*b*z' on a 1,604-byte C++ name) and asserts on names of a million
// bytes.
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_CORE_GLOB_H
#define APROF_CORE_GLOB_H

namespace aprof {

// True if the whole NUL-terminated `name` matches the NUL-terminated `pattern`.
bool GlobMatches(const char* pattern, const char* name);

}  // namespace aprof

#endif  // APROF_CORE_GLOB_H
