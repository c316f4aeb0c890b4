// SPDX-License-Identifier: GPL-2.0-or-later
// Recognises a rep-prefixed x86 string instruction (movs, stos, lods, cmps,
// scas) from its bytes, and the cost rule such an instruction is charged
// by. Valgrind runs one iteration of it per superblock execution, so
// counted as blocks or instructions its cost would be one per element:
// above glibc's rep threshold a copy would cost 128 times what the vector
// loop below it costs, and its growth would change with the CPU. Pure
// byte logic with no Valgrind dependency, so it is unit-tested natively.
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_STRING_INSTRUCTION_H
#define APROF_STRING_INSTRUCTION_H

#include "core/types.h"

namespace aprof {

// A string instruction costs what the loop it replaces costs: glibc's
// widest copy and fill loops under Valgrind (AVX2; Valgrind has no
// AVX-512) move 128 bytes per block of 8 to 12 instructions. So one block
// per 128 bytes processed, and one instruction per 16 bytes; the remainder
// carries over to the next iteration.
constexpr u32 kRepBytesPerBlockLog2 = 7;
constexpr u32 kRepBytesPerInstructionLog2 = 4;

// The element size in bytes (1, 2, 4 or 8) of a rep- or repne-prefixed
// string instruction, or 0 for any other instruction. `length` is the
// instruction's length as decoded by Valgrind.
inline u32 RepStringElementBytes(const u8* bytes, u32 length) {
  bool rep = false, operand16 = false, rex_w = false;
  u32 i = 0;
  for (; i < length; ++i) {  // legacy prefixes, in any order
    const u8 b = bytes[i];
    if (b == 0xf2 || b == 0xf3) rep = true;
    else if (b == 0x66) operand16 = true;
    else if (b != 0x67 && b != 0x2e && b != 0x3e && b != 0x26 && b != 0x36 &&
             b != 0x64 && b != 0x65)
      break;
  }
  if (i < length && (bytes[i] & 0xf0) == 0x40) {  // REX comes last
    rex_w = (bytes[i] & 0x08) != 0;
    ++i;
  }
  if (!rep || i + 1 != length) return 0;  // the opcode is the last byte
  const u8 opcode = bytes[i];
  if (opcode < 0xa4 || opcode > 0xaf || opcode == 0xa8 || opcode == 0xa9) return 0;  // test
  if ((opcode & 1) == 0) return 1;  // movsb, cmpsb, stosb, lodsb, scasb
  return rex_w ? 8 : operand16 ? 2 : 4;
}

}  // namespace aprof

#endif  // APROF_STRING_INSTRUCTION_H
