// SPDX-License-Identifier: GPL-2.0-or-later
// The escaping of the report's text fields (docs/report-format.md, format
// version 5), so that a report line is valid UTF-8 with no control
// character but the TAB between fields and the final LF, whatever bytes a
// routine name, a path or a program argument holds: `\\`, `\t`, `\n`, `\r`
// for those four, and `\xHH` (one raw byte, lowercase hex) for every byte
// outside a valid UTF-8 sequence and for every other control character
// (C0, DEL, and the C1 controls U+0080-U+009F, written as their two bytes).
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_CORE_TEXT_ESCAPE_H
#define APROF_CORE_TEXT_ESCAPE_H

namespace aprof {

namespace text_escape_detail {

inline bool IsContinuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

// The length of the valid UTF-8 sequence that starts at s (1 to 4), or 0 if
// s[0] starts none (a stray continuation byte, an overlong form, a
// surrogate, a code point above U+10FFFF, or a sequence cut short: the
// terminating NUL is no continuation byte, so nothing past it is read).
inline int Utf8SequenceLength(const unsigned char* s) {
  const unsigned char lead = s[0];
  if (lead < 0x80) return 1;
  // The second byte's range depends on the lead byte (RFC 3629, section 4).
  unsigned char low = 0x80, high = 0xBF;
  int length;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong below U+0800
    if (lead == 0xED) high = 0x9F;  // surrogates U+D800-U+DFFF
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong below U+10000
    if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 0;  // continuation byte, C0/C1 (overlong) or F5-FF
  }
  if (s[1] < low || s[1] > high) return 0;
  for (int i = 2; i < length; ++i)
    if (!IsContinuation(s[i])) return 0;
  return length;
}

template <typename PutChar>
void PutHexByte(unsigned char byte, PutChar& put) {
  const char digits[] = "0123456789abcdef";
  put('\\');
  put('x');
  put(digits[byte >> 4]);
  put(digits[byte & 0xF]);
}

}  // namespace text_escape_detail

// Writes the NUL-terminated `text`, escaped, one char at a time through put(c).
template <typename PutChar>
void EscapeText(const char* text, PutChar put) {
  using namespace text_escape_detail;
  const unsigned char* s = reinterpret_cast<const unsigned char*>(text);
  while (*s != '\0') {
    const int length = Utf8SequenceLength(s);
    const bool c1_control = length == 2 && s[0] == 0xC2 && s[1] < 0xA0;
    if (length == 0 || c1_control || (length == 1 && (*s < 0x20 || *s == 0x7F))) {
      switch (*s) {
        case '\t': put('\\'); put('t'); break;
        case '\n': put('\\'); put('n'); break;
        case '\r': put('\\'); put('r'); break;
        default:
          for (int i = 0; i < (c1_control ? 2 : 1); ++i) PutHexByte(s[i], put);
      }
      s += c1_control ? 2 : 1;
      continue;
    }
    if (*s == '\\') put('\\');
    for (int i = 0; i < length; ++i) put(static_cast<char>(*s++));
  }
}

}  // namespace aprof

#endif  // APROF_CORE_TEXT_ESCAPE_H
