// SPDX-License-Identifier: GPL-2.0-or-later
// Function starts of a stripped ELF object from its unwind table. Debian
// strips its binaries down to .dynsym, so a static function has no symbol
// and nothing tells the tool where it starts; but the object keeps
// .eh_frame for exceptions and backtraces, and the linker's .eh_frame_hdr
// (PT_GNU_EH_FRAME) lists, sorted for binary search, the initial location
// of every FDE: the start of every function, and of every `.cold` part
// split from one (which with symbols has its own symbol too). This reads
// version 1 of the header as GNU ld and lld write it (eh_frame_ptr
// pcrel|sdata4, fde_count udata4, table datarel|sdata4) and the other
// fixed-size encodings (below), on 64-bit little-endian ELF files. Pure
// byte parsing with bounds checks on every field: truncated or corrupt
// bytes give no table and a reason, never a read outside the bytes given.
// Engine-side (no libc, no Valgrind) so that the unit tests run it natively
// on real objects.
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_CORE_EH_FRAME_HDR_H
#define APROF_CORE_EH_FRAME_HDR_H

#include "go_pclntab.h"  // the ELF reader: ElfFile, FindElfSection
#include "internal_vector.h"
#include "types.h"

namespace aprof {

// The function starts of one object, as it links them, in ascending order.
class FunctionStarts {
 public:
  FunctionStarts() = default;
  FunctionStarts(const FunctionStarts&) = delete;
  FunctionStarts& operator=(const FunctionStarts&) = delete;

  // Reads the starts (in place of any read before) from the bytes of an
  // .eh_frame_hdr section linked at `section_address`. Encodings read:
  // eh_frame_ptr (skipped) of any fixed size (2, 4 or 8 bytes), absolute,
  // pc- or data-relative; fde_count unsigned of any fixed size; the table's
  // entries of any fixed size, signed or not, data-relative (the section's
  // address) or absolute. LEB128, aligned, indirect and function- or
  // text-relative encodings are refused (no linker writes them here). False,
  // no starts and *error saying what is wrong, if the bytes break any
  // bounds or invariant, or hold no table (a linker that could not sort
  // the FDEs writes the header without one).
  bool Parse(const u8* section, size_t size, u64 section_address, const char** error);

  // Whether a function starts exactly at `address` (as the object links it).
  bool Contains(u64 address) const;

  size_t size() const { return starts_.size(); }
  u64 start(size_t i) const { return starts_[i]; }

 private:
  bool Fail(const char* reason, const char** error);

  InternalVector<u64> starts_;
};

enum class UnwindTableStatus {
  kNone,      // the file has no .eh_frame_hdr section
  kRead,      // the starts are read
  kUnusable,  // the section is there but cannot be read or parsed
};

// Reads the function starts of an ELF object from its .eh_frame_hdr into
// *starts. With kUnusable, *error says why.
UnwindTableStatus ReadFunctionStarts(const ElfFile& elf, FunctionStarts* starts,
                                     const char** error);

}  // namespace aprof

#endif  // APROF_CORE_EH_FRAME_HDR_H
