// SPDX-License-Identifier: GPL-2.0-or-later
// Glob matching (glob.h): the two-pointer algorithm with one backtrack point.
//
// Copyright (C) 2026, the aprof-trms authors.
#include "glob.h"

namespace aprof {

// Only the latest `*` needs remembering: when the pattern after it fails at
// some name position, the `*` absorbs one more byte and the rest is tried
// again from there. An earlier `*` never needs to absorb more, because any
// match of the later part found further right is also reachable through
// the latest `*`. So the name position only moves forward, or back to just
// after the last retry point: O(pattern length x name length) at worst, one
// pass over the name for a pattern without `*`.
bool GlobMatches(const char* pattern, const char* name) {
  const char* star = nullptr;        // pattern just after the latest `*`
  const char* star_name = nullptr;   // where that `*`'s match currently ends
  while (*name != '\0') {
    if (*pattern == '*') {
      star = ++pattern;
      star_name = name;
    } else if (*pattern != '\0' && (*pattern == '?' || *pattern == *name)) {
      ++pattern;
      ++name;
    } else if (star != nullptr) {
      pattern = star;
      name = ++star_name;
    } else {
      return false;
    }
  }
  while (*pattern == '*') ++pattern;
  return *pattern == '\0';
}

}  // namespace aprof
