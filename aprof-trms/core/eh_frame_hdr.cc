// SPDX-License-Identifier: GPL-2.0-or-later
// Function starts from .eh_frame_hdr (eh_frame_hdr.h). The layout, as the
// Linux Standard Base (Core, "The .eh_frame_hdr section") and GNU ld's
// elf-eh-frame.c write it:
//
//   version         u8, 1
//   eh_frame_ptr_enc, fde_count_enc, table_enc   u8 each: DW_EH_PE encodings
//   eh_frame_ptr    the address of .eh_frame (encoded as eh_frame_ptr_enc)
//   fde_count       the number of table entries (fde_count_enc)
//   table           fde_count pairs (initial location, FDE address), both
//                   encoded as table_enc and sorted by initial location;
//                   data-relative values count from the section's start.
//
// An encoding is a value format (low four bits) and how the value applies
// (bits 4 to 6), with 0x80 for an indirect value and 0xff for none.
//
// Copyright (C) 2026, the aprof-trms authors.
#include "eh_frame_hdr.h"

namespace aprof {

namespace {

constexpr u8 kVersion = 1;
constexpr u8 kHeaderBytes = 4;  // version and the three encodings
constexpr u8 kOmitted = 0xff;   // DW_EH_PE_omit: no such field

// How a value applies (DW_EH_PE_*rel), or the indirect bit.
constexpr u8 kApplicationMask = 0x70;
constexpr u8 kAbsolute = 0x00;
constexpr u8 kPcRelative = 0x10;
constexpr u8 kDataRelative = 0x30;
constexpr u8 kIndirect = 0x80;
constexpr u8 kSigned = 0x08;  // sdata2, sdata4, sdata8

// The bytes of a value of a fixed-size format (absptr, udata2/4/8,
// sdata2/4/8); 0 for the others (uleb128, sleb128, unknown ones).
u32 ValueBytes(u8 encoding) {
  switch (encoding & 0x0f) {
    case 0x00: return 8;  // absptr, a 64-bit address here
    case 0x02: case 0x0a: return 2;
    case 0x03: case 0x0b: return 4;
    case 0x04: case 0x0c: return 8;
    default: return 0;
  }
}

// A field's encoding as read here.
struct Field {
  u32 bytes;  // 0: an encoding not read here
  bool is_signed;
  bool data_relative;
};

// `encoding` as a field whose value may apply as `allowed` says (a set of
// application bits, kAbsolute always being allowed); bytes 0 if it cannot.
Field FieldOf(u8 encoding, u32 allowed) {
  const u8 application = encoding & kApplicationMask;
  const bool applies = application == kAbsolute || (allowed >> (application >> 4) & 1) != 0;
  if ((encoding & kIndirect) != 0 || !applies) return {0, false, false};
  return {ValueBytes(encoding), (encoding & kSigned) != 0, application == kDataRelative};
}

constexpr u32 Allows(u8 application) { return 1u << (application >> 4); }

u64 LoadField(const u8* p, const Field& field) {
  const u64 value = LoadLittleEndian(p, field.bytes);
  const u32 bits = field.bytes * 8;
  if (!field.is_signed || bits == 64 || (value >> (bits - 1) & 1) == 0) return value;
  return value | ~0ull << bits;  // sign-extended
}

}  // namespace

bool FunctionStarts::Fail(const char* reason, const char** error) {
  starts_.clear();
  *error = reason;
  return false;
}

bool FunctionStarts::Parse(const u8* section, size_t size, u64 section_address,
                           const char** error) {
  starts_.clear();
  if (size < kHeaderBytes) return Fail("shorter than its header", error);
  if (section[0] != kVersion) return Fail("not version 1", error);
  if (section[2] == kOmitted || section[3] == kOmitted)
    return Fail("no binary-search table", error);
  const Field pointer = FieldOf(section[1], Allows(kPcRelative) | Allows(kDataRelative));
  const Field count_field = FieldOf(section[2], 0);
  const Field entry = FieldOf(section[3], Allows(kDataRelative));
  if (pointer.bytes == 0) return Fail("unsupported encoding of eh_frame_ptr", error);
  if (count_field.bytes == 0 || count_field.is_signed)
    return Fail("unsupported encoding of fde_count", error);
  if (entry.bytes == 0) return Fail("unsupported encoding of the table", error);
  const u64 table = kHeaderBytes + pointer.bytes + count_field.bytes;
  if (table > size) return Fail("header truncated", error);
  const u64 count = LoadField(section + table - count_field.bytes, count_field);
  const u64 pair_bytes = 2 * entry.bytes;
  if (count > (size - table) / pair_bytes) return Fail("table truncated", error);
  const u64 base = entry.data_relative ? section_address : 0;
  starts_.resize(static_cast<size_t>(count));
  for (u64 i = 0; i < count; ++i) {
    // The pair's first value: the FDE's initial location.
    starts_[i] = base + LoadField(section + table + i * pair_bytes, entry);
    if (i > 0 && starts_[i] < starts_[i - 1]) return Fail("table out of order", error);
  }
  return true;
}

bool FunctionStarts::Contains(u64 address) const {
  // The first start at or above the address.
  size_t low = 0, high = starts_.size();
  while (low < high) {
    const size_t middle = low + (high - low) / 2;
    if (starts_[middle] < address)
      low = middle + 1;
    else
      high = middle;
  }
  return low < starts_.size() && starts_[low] == address;
}

UnwindTableStatus ReadFunctionStarts(const ElfFile& elf, FunctionStarts* starts,
                                     const char** error) {
  ElfSection header;
  if (!FindElfSection(elf, ".eh_frame_hdr", &header)) return UnwindTableStatus::kNone;
  // The section lies in the file (FindElfSection): its size is bounded.
  u8* bytes = static_cast<u8*>(PlatformAllocate(header.size ? header.size : 1));
  bool parsed = false;
  if (!elf.read(elf.file, header.offset, bytes, header.size))
    *error = "cannot read the section";
  else
    parsed = starts->Parse(bytes, header.size, header.address, error);
  PlatformFree(bytes);
  return parsed ? UnwindTableStatus::kRead : UnwindTableStatus::kUnusable;
}

}  // namespace aprof
