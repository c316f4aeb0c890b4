// SPDX-License-Identifier: GPL-2.0-or-later
// The routine-name glob matcher (core/glob.h): fixed cases, random patterns
// and names against a naive recursive matcher (the seed in each failure),
// and names far past the lengths where Valgrind's matcher hangs or asserts.
//
// Copyright (C) 2026, the aprof-trms authors.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/glob.h"

namespace aprof {
namespace {

// The definition, recursively: exponential on bad cases, fine on short ones.
bool NaiveMatch(const char* pattern, const char* name) {
  if (*pattern == '\0') return *name == '\0';
  if (*pattern == '*')
    return NaiveMatch(pattern + 1, name) || (*name != '\0' && NaiveMatch(pattern, name + 1));
  if (*name == '\0') return false;
  return (*pattern == '?' || *pattern == *name) && NaiveMatch(pattern + 1, name + 1);
}

TEST(Glob, FixedCases) {
  EXPECT_TRUE(GlobMatches("", ""));
  EXPECT_FALSE(GlobMatches("", "a"));
  EXPECT_TRUE(GlobMatches("*", ""));
  EXPECT_TRUE(GlobMatches("**", "abc"));
  EXPECT_TRUE(GlobMatches("sum_*", "sum_array"));
  EXPECT_FALSE(GlobMatches("sum_*", "run_sum"));
  EXPECT_TRUE(GlobMatches("*sum*", "run_sum"));
  EXPECT_TRUE(GlobMatches("?", "x"));
  EXPECT_FALSE(GlobMatches("?", ""));
  EXPECT_FALSE(GlobMatches("??", "x"));
  EXPECT_TRUE(GlobMatches("a*b?d", "axxbcd"));
  EXPECT_TRUE(GlobMatches("*ab", "aab"));     // the `*` must absorb one more byte
  EXPECT_TRUE(GlobMatches("*a*b", "xaxxab"));
  EXPECT_FALSE(GlobMatches("*a*b", "xaxxa"));
  EXPECT_TRUE(GlobMatches("std::vector<*>::push_back(*)",
                          "std::vector<int, std::allocator<int> >::push_back(int const&)"));
  // No escapes: a backslash is an ordinary byte; bytes above 0x7f too.
  EXPECT_TRUE(GlobMatches("a\\*", "a\\bc"));
  EXPECT_FALSE(GlobMatches("a\\*", "a*"));
  EXPECT_TRUE(GlobMatches("caf?", "caf\xe9"));
  EXPECT_TRUE(GlobMatches("*\xff*", "x\xffy"));
}

TEST(Glob, AgreesWithTheNaiveMatcherOnRandomPatternsAndNames) {
  for (unsigned seed = 1; seed <= 20000; ++seed) {
    std::mt19937 rng(seed);
    auto random_text = [&](const char* alphabet, size_t alphabet_size, size_t max_length) {
      std::string s(std::uniform_int_distribution<size_t>(0, max_length)(rng), ' ');
      for (char& c : s) c = alphabet[std::uniform_int_distribution<size_t>(0, alphabet_size - 1)(rng)];
      return s;
    };
    const std::string pattern = random_text("ab*?", 4, 8);
    const std::string name = random_text("abc", 3, 12);
    ASSERT_EQ(GlobMatches(pattern.c_str(), name.c_str()), NaiveMatch(pattern.c_str(), name.c_str()))
        << "seed " << seed << ": pattern '" << pattern << "', name '" << name << "'";
  }
}

// The cases: Valgrind's matcher took over 10 minutes for '*a*b*c*z'
// on a 20,004-byte name and asserted on a million bytes. The test has no
// time limit of its own (no timed tests): a backtracking matcher makes it
// hang, which the suite's timeout reports.
TEST(Glob, LongNamesWithManyPartialMatches) {
  std::string name;
  for (int i = 0; i < 400000; ++i) name += "abc";
  EXPECT_FALSE(GlobMatches("*a*b*c*z", name.c_str()));
  EXPECT_FALSE(GlobMatches("*c*a*b*z", name.c_str()));
  name += "z";
  EXPECT_TRUE(GlobMatches("*a*b*c*z", name.c_str()));
  EXPECT_TRUE(GlobMatches("abc*abc?", name.c_str()));
  EXPECT_FALSE(GlobMatches("*abcz?", name.c_str()));
}

}  // namespace
}  // namespace aprof
