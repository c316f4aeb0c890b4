// SPDX-License-Identifier: GPL-2.0-or-later
// The escaping of the report's text fields (core/text_escape.h, format
// version 5): fixed cases, and random byte strings whose escaped form must
// be valid UTF-8 without control characters and must give the bytes back.
//
// Copyright (C) 2026, the aprof-trms authors.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/text_escape.h"

namespace aprof {
namespace {

std::string Escaped(const std::string& text) {
  std::string out;
  EscapeText(text.c_str(), [&](char c) { out += c; });
  return out;
}

// The reader's side (docs/report-format.md): the escapes back to bytes.
std::string Unescaped(const std::string& field) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] != '\\') {
      out += field[i];
      continue;
    }
    const char e = field.at(++i);
    if (e == 'x') {
      out += static_cast<char>(std::stoi(field.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += e == 't' ? '\t' : e == 'n' ? '\n' : e == 'r' ? '\r' : e;
    }
  }
  return out;
}

// Decodes by code points (an independent formulation of UTF-8 validity):
// false on any invalid sequence or on a control character (Cc: C0, DEL, C1).
bool IsUtf8WithoutControls(const std::string& text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  for (size_t i = 0; i < text.size();) {
    const unsigned lead = s[i];
    const int extra = lead < 0x80 ? 0 : lead >> 5 == 6 ? 1 : lead >> 4 == 14 ? 2 : lead >> 3 == 30 ? 3 : -1;
    if (extra < 0 || i + extra >= text.size()) return false;
    unsigned code = extra == 0 ? lead : lead & (0x3F >> extra);
    for (int k = 1; k <= extra; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return false;
      code = code << 6 | (s[i + k] & 0x3F);
    }
    const unsigned smallest[] = {0, 0x80, 0x800, 0x10000};
    if (code < smallest[extra] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
    if (code < 0x20 || (code >= 0x7F && code <= 0x9F)) return false;
    i += extra + 1;
  }
  return true;
}

TEST(TextEscape, FixedCases) {
  EXPECT_EQ(Escaped("plain name"), "plain name");
  EXPECT_EQ(Escaped("a\\b\tc\nd\re"), "a\\\\b\\tc\\nd\\re");
  EXPECT_EQ(Escaped("x\xffy"), "x\\xffy");
  EXPECT_EQ(Escaped("caf\xe9"), "caf\\xe9");
  EXPECT_EQ(Escaped("caf\xc3\xa9"), "caf\xc3\xa9");                   // é stays as is
  EXPECT_EQ(Escaped("\x1b]0;title\x07"), "\\x1b]0;title\\x07");       // ESC, BEL
  EXPECT_EQ(Escaped("del\x7f"), "del\\x7f");
  EXPECT_EQ(Escaped("\xc2\x85 \xc2\x9f \xc2\xa0"), "\\xc2\\x85 \\xc2\\x9f \xc2\xa0");  // C1, NBSP
  EXPECT_EQ(Escaped("\xc0\xaf"), "\\xc0\\xaf");                       // overlong '/'
  EXPECT_EQ(Escaped("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");              // overlong, 3 bytes
  EXPECT_EQ(Escaped("\xed\xa0\x80"), "\\xed\\xa0\\x80");              // a surrogate
  EXPECT_EQ(Escaped("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");     // above U+10FFFF
  EXPECT_EQ(Escaped("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");         // U+1F600
  EXPECT_EQ(Escaped("\xe2\x82"), "\\xe2\\x82");                       // cut short by the end
  EXPECT_EQ(Escaped("\xe2\x82x"), "\\xe2\\x82x");
}

TEST(TextEscape, RandomBytesGiveValidUtf8ThatReadsBack) {
  for (unsigned seed = 1; seed <= 20000; ++seed) {
    std::mt19937 rng(seed);
    std::string text(std::uniform_int_distribution<int>(0, 12)(rng), ' ');
    // Bytes biased to where UTF-8's rules are: ASCII, controls, lead and
    // continuation bytes.
    const unsigned char pool[] = {'a', '\\', 'x', '\t', '\n', '\r', 0x01, 0x1B, 0x7F, 0x80, 0x85,
                                  0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0,
                                  0xF4, 0xF5, 0xFF};
    for (char& c : text)
      c = static_cast<char>(pool[std::uniform_int_distribution<size_t>(0, sizeof pool - 1)(rng)]);
    const std::string escaped = Escaped(text);
    ASSERT_TRUE(IsUtf8WithoutControls(escaped)) << "seed " << seed << ": " << escaped;
    ASSERT_EQ(Unescaped(escaped), text) << "seed " << seed << ": " << escaped;
  }
}

}  // namespace
}  // namespace aprof
