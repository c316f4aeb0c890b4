// SPDX-License-Identifier: GPL-2.0-or-later
// Go function names from the pclntab (go_pclntab.h). The layout, as Go's
// runtime/symtab.go (pcHeader, _func) and debug/gosym describe it:
//
//   header  magic u32, two zero bytes, the pc quantum (1, 2 or 4), the
//           pointer size (8 here), then pointer-sized words: the number of
//           functions, of files, [Go 1.18+: the address of runtime.text],
//           and the offsets, from the header, of the function name table,
//           the compilation units, the files, the pc tables and the
//           function table;
//   functab 2n+1 fields, pointer-sized before Go 1.18, 4 bytes since: the
//           entry of each function (since Go 1.18 counted from
//           runtime.text) and the offset of its _func record from the
//           function table, then where the last function ends;
//   _func   its entry again (the same field size and meaning), then the
//           offset of its NUL-terminated name in the function name table
//           (an int32), then fields that are not needed here.
//
// Copyright (C) 2026, the aprof-trms authors.
#include "go_pclntab.h"

namespace aprof {

u64 LoadLittleEndian(const u8* p, u32 bytes) {
  u64 value = 0;
  for (u32 i = bytes; i-- > 0;) value = value << 8 | p[i];
  return value;
}

namespace {

constexpr u32 kMagicGo116 = 0xfffffffa;
constexpr u32 kMagicGo118 = 0xfffffff0;
constexpr u32 kMagicGo120 = 0xfffffff1;
constexpr u64 kPointerSize = 8;
// Longer names mean a corrupt table (the longest Go name seen is a few
// hundred bytes of generic instantiation); the cap also bounds the search
// for a name's end.
constexpr u64 kMaxNameBytes = 64 * 1024;

// The section's bytes with every read checked against their end.
class Bytes {
 public:
  Bytes(const u8* data, u64 size) : data_(data), size_(size) {}
  bool Has(u64 offset, u64 length) const { return offset <= size_ && length <= size_ - offset; }
  // Callers check Has(offset, bytes) first.
  u64 Load(u64 offset, u32 bytes) const { return LoadLittleEndian(data_ + offset, bytes); }
  // The length of the NUL-terminated string at `offset`, or -1 if it does
  // not end within kMaxNameBytes and the section.
  long long StringLength(u64 offset) const {
    for (u64 i = offset; i < size_ && i - offset < kMaxNameBytes; ++i)
      if (data_[i] == 0) return static_cast<long long>(i - offset);
    return -1;
  }
  const u8* At(u64 offset) const { return data_ + offset; }
  u64 size() const { return size_; }

 private:
  const u8* data_;
  u64 size_;
};

// What the header says, in the terms of all three formats.
struct Header {
  u32 field_bytes;      // of a function table field and a _func entry
  u64 functions;
  u64 text_start;       // added to entries (0 before Go 1.18)
  u64 names_offset;     // the function name table
  u64 functab_offset;   // the function table, which _func offsets count from
};

const char* ReadHeader(const Bytes& bytes, u64 text_address, Header* header) {
  if (!bytes.Has(0, 8)) return "shorter than its header";
  const u64 magic = bytes.Load(0, 4);
  const bool go118 = magic == kMagicGo118 || magic == kMagicGo120;
  if (!go118 && magic != kMagicGo116) return "not the table of Go 1.16 or later (unknown magic)";
  const u64 quantum = bytes.Load(6, 1);
  if (bytes.Load(4, 2) != 0 || (quantum != 1 && quantum != 2 && quantum != 4))
    return "malformed header";
  if (bytes.Load(7, 1) != kPointerSize) return "not a 64-bit table";
  const u64 words = go118 ? 8 : 7;
  if (!bytes.Has(8, words * kPointerSize)) return "header truncated";
  auto word = [&bytes](u64 i) { return bytes.Load(8 + i * kPointerSize, kPointerSize); };
  header->field_bytes = go118 ? 4 : kPointerSize;
  header->functions = word(0);
  // Go's linker writes runtime.text's link-time address there; a table
  // that holds 0 (an unapplied relocation) counts from .text, as Go's own
  // tools always do.
  header->text_start = !go118 ? 0 : word(2) != 0 ? word(2) : text_address;
  header->names_offset = word(go118 ? 3 : 2);
  header->functab_offset = word(go118 ? 7 : 6);
  if (header->functions == 0) return "no functions";
  if (!bytes.Has(header->names_offset, 1)) return "function name table out of bounds";
  const u64 fields_per_function = 2 * header->field_bytes;
  if (header->functions > bytes.size() / fields_per_function ||
      !bytes.Has(header->functab_offset, (header->functions * 2 + 1) * header->field_bytes))
    return "function table out of bounds";
  return nullptr;
}

}  // namespace

bool GoFunctionTable::Fail(const char* reason, const char** error) {
  functions_.clear();
  names_.clear();
  end_ = 0;
  *error = reason;
  return false;
}

bool GoFunctionTable::Parse(const u8* section, size_t size, u64 text_address, const char** error) {
  functions_.clear();
  names_.clear();
  const Bytes bytes(section, size);
  Header header;
  if (const char* wrong = ReadHeader(bytes, text_address, &header)) return Fail(wrong, error);
  const u32 field = header.field_bytes;
  auto functab_field = [&](u64 i) { return bytes.Load(header.functab_offset + i * field, field); };
  u64 previous = 0;
  for (u64 i = 0; i < header.functions; ++i) {
    const u64 entry_field = functab_field(2 * i);
    const u64 entry = header.text_start + entry_field;
    if (entry < previous || entry < header.text_start) return Fail("entries out of order", error);
    previous = entry;
    const u64 record = header.functab_offset + functab_field(2 * i + 1);
    if (record < header.functab_offset || !bytes.Has(record, field + 4))
      return Fail("function record out of bounds", error);
    if (bytes.Load(record, field) != entry_field)
      return Fail("function record disagrees with the function table", error);
    const u64 name_offset = bytes.Load(record + field, 4);
    if (name_offset >= 0x80000000u) return Fail("negative name offset", error);
    const u64 name = header.names_offset + name_offset;
    const long long length = bytes.Has(name, 1) ? bytes.StringLength(name) : -1;
    if (length <= 0) return Fail("function name out of bounds", error);
    const size_t at = names_.size();
    names_.resize(at + static_cast<size_t>(length) + 1);
    __builtin_memcpy(names_.data() + at, bytes.At(name), static_cast<size_t>(length) + 1);
    functions_.push_back({entry, at});
  }
  end_ = header.text_start + functab_field(2 * header.functions);
  if (end_ < previous) return Fail("entries out of order", error);
  return true;
}

const char* GoFunctionTable::FunctionAt(u64 address, u64* entry) const {
  if (functions_.empty() || address < functions_[0].entry || address >= end_) return nullptr;
  // The last function whose entry is at or below the address.
  size_t low = 0, high = functions_.size();
  while (high - low > 1) {
    const size_t middle = low + (high - low) / 2;
    if (functions_[middle].entry <= address)
      low = middle;
    else
      high = middle;
  }
  *entry = functions_[low].entry;
  return names_.data() + functions_[low].name;
}

namespace {

constexpr u8 kElfMagic[4] = {0x7f, 'E', 'L', 'F'};
constexpr u8 kElfClass64 = 2;
constexpr u8 kElfLittleEndian = 1;
constexpr u64 kElfHeaderBytes = 64;
// The part of a section header read here: up to sh_size.
constexpr u64 kSectionHeaderBytes = 0x28;
constexpr u64 kSectionNoBits = 8;  // SHT_NOBITS: no bytes in the file

bool InFile(const ElfFile& elf, u64 offset, u64 length) {
  return offset <= elf.size && length <= elf.size - offset;
}

bool ReadBytes(const ElfFile& elf, u64 offset, void* buffer, u64 length) {
  return InFile(elf, offset, length) && elf.read(elf.file, offset, buffer, length);
}

struct SectionHeader {
  u64 name;
  u64 type;
  ElfSection section;
};

bool ReadSectionHeader(const ElfFile& elf, u64 offset, SectionHeader* header) {
  u8 raw[kSectionHeaderBytes];
  if (!ReadBytes(elf, offset, raw, sizeof raw)) return false;
  header->name = LoadLittleEndian(raw, 4);
  header->type = LoadLittleEndian(raw + 4, 4);
  header->section = {LoadLittleEndian(raw + 0x10, 8), LoadLittleEndian(raw + 0x18, 8),
                     LoadLittleEndian(raw + 0x20, 8)};
  return true;
}

// Whether the section name table holds `name` at `offset`.
bool NameIs(const ElfFile& elf, const ElfSection& names, u64 offset, const char* name) {
  u8 found[64];
  u64 length = 0;
  while (name[length] != '\0') ++length;
  if (length + 1 > sizeof found || offset >= names.size || length + 1 > names.size - offset ||
      !ReadBytes(elf, names.offset + offset, found, length + 1))
    return false;
  for (u64 i = 0; i <= length; ++i)
    if (found[i] != static_cast<u8>(name[i])) return false;
  return true;
}

}  // namespace

bool FindElfSection(const ElfFile& elf, const char* name, ElfSection* section) {
  u8 header[kElfHeaderBytes];
  if (!ReadBytes(elf, 0, header, sizeof header)) return false;
  for (u32 i = 0; i < 4; ++i)
    if (header[i] != kElfMagic[i]) return false;
  if (header[4] != kElfClass64 || header[5] != kElfLittleEndian) return false;
  const u64 table = LoadLittleEndian(header + 0x28, 8);
  const u64 entry_bytes = LoadLittleEndian(header + 0x3a, 2);
  const u64 count = LoadLittleEndian(header + 0x3c, 2);
  const u64 names_index = LoadLittleEndian(header + 0x3e, 2);
  if (entry_bytes < kSectionHeaderBytes || names_index >= count ||
      !InFile(elf, table, count * entry_bytes))
    return false;
  SectionHeader names;
  if (!ReadSectionHeader(elf, table + names_index * entry_bytes, &names) ||
      names.type == kSectionNoBits || !InFile(elf, names.section.offset, names.section.size))
    return false;
  for (u64 i = 0; i < count; ++i) {
    SectionHeader candidate;
    if (!ReadSectionHeader(elf, table + i * entry_bytes, &candidate)) return false;
    if (candidate.type == kSectionNoBits || !NameIs(elf, names.section, candidate.name, name))
      continue;
    if (!InFile(elf, candidate.section.offset, candidate.section.size)) return false;
    *section = candidate.section;
    return true;
  }
  return false;
}

GoTableStatus ReadGoFunctionTable(const ElfFile& elf, GoFunctionTable* table, const char** error) {
  ElfSection pclntab;
  if (!FindElfSection(elf, ".gopclntab", &pclntab) &&
      !FindElfSection(elf, ".data.rel.ro.gopclntab", &pclntab))
    return GoTableStatus::kNone;
  ElfSection text = {0, 0, 0};  // address 0 if there is none
  FindElfSection(elf, ".text", &text);
  // The section lies in the file (FindElfSection): its size is bounded.
  u8* bytes = static_cast<u8*>(PlatformAllocate(pclntab.size ? pclntab.size : 1));
  bool parsed = false;
  if (!ReadBytes(elf, pclntab.offset, bytes, pclntab.size))
    *error = "cannot read the section";
  else
    parsed = table->Parse(bytes, pclntab.size, text.address, error);
  PlatformFree(bytes);
  return parsed ? GoTableStatus::kRead : GoTableStatus::kUnusable;
}

}  // namespace aprof
