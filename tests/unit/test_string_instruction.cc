// SPDX-License-Identifier: GPL-2.0-or-later
// The recognition of rep-prefixed string instructions, whose cost is
// charged by the bytes they process (aprof-trms/string_instruction.h):
// every string opcode at every operand size, with the prefixes compilers
// and glibc emit, and the instructions that look alike but are not.
//
// Copyright (C) 2026, the aprof-trms authors.
#include <gtest/gtest.h>

#include <vector>

#include "string_instruction.h"

namespace aprof {
namespace {

u32 ElementBytes(std::vector<u8> bytes) {
  return RepStringElementBytes(bytes.data(), static_cast<u32>(bytes.size()));
}

TEST(RepStringInstruction, EveryStringOpcodeAtEverySize) {
  for (u8 byte_op : {0xa4, 0xa6, 0xaa, 0xac, 0xae}) {  // movs cmps stos lods scas
    const u8 wide_op = byte_op + 1;
    EXPECT_EQ(ElementBytes({0xf3, byte_op}), 1u) << int(byte_op);
    EXPECT_EQ(ElementBytes({0xf3, 0x66, wide_op}), 2u) << int(byte_op);
    EXPECT_EQ(ElementBytes({0x66, 0xf3, wide_op}), 2u) << int(byte_op);
    EXPECT_EQ(ElementBytes({0xf3, wide_op}), 4u) << int(byte_op);
    EXPECT_EQ(ElementBytes({0xf3, 0x48, wide_op}), 8u) << int(byte_op);
    EXPECT_EQ(ElementBytes({0xf2, 0x48, wide_op}), 8u) << int(byte_op);  // repne
  }
}

TEST(RepStringInstruction, RexWinsOverTheOperandSizePrefix) {
  EXPECT_EQ(ElementBytes({0x66, 0xf3, 0x48, 0xa5}), 8u);
  EXPECT_EQ(ElementBytes({0xf3, 0x40, 0xa5}), 4u);  // REX without W
}

TEST(RepStringInstruction, AddressSizeAndSegmentPrefixesAreSkipped) {
  EXPECT_EQ(ElementBytes({0x67, 0xf3, 0xa4}), 1u);
  EXPECT_EQ(ElementBytes({0xf3, 0x64, 0xa4}), 1u);
}

TEST(RepStringInstruction, OtherInstructionsAreNot) {
  EXPECT_EQ(ElementBytes({0xa4}), 0u);              // movsb without rep: one element
  EXPECT_EQ(ElementBytes({0x48, 0xa5}), 0u);
  EXPECT_EQ(ElementBytes({0xf3, 0xa8, 0x01}), 0u);  // test al, imm8
  EXPECT_EQ(ElementBytes({0xf3, 0xa9, 1, 0, 0, 0}), 0u);
  EXPECT_EQ(ElementBytes({0xf3, 0xc3}), 0u);        // rep ret
  EXPECT_EQ(ElementBytes({0xf3, 0x90}), 0u);        // pause
  EXPECT_EQ(ElementBytes({0xf3, 0x0f, 0xb8, 0xc0}), 0u);  // popcnt
  EXPECT_EQ(ElementBytes({0xf3, 0xa3}), 0u);        // mov [moffs], eax: 0xa3 < 0xa4
  EXPECT_EQ(ElementBytes({0xf3, 0xb0, 0x01}), 0u);  // mov al, imm8
  EXPECT_EQ(ElementBytes({0xf3, 0x48}), 0u);        // truncated
  EXPECT_EQ(ElementBytes({}), 0u);
}

}  // namespace
}  // namespace aprof
