// SPDX-License-Identifier: GPL-2.0-or-later
// Function names of a Go binary from Go's own symbol table, the pclntab.
// Debian strips Go binaries (and `go build -ldflags=-s` does the same), so
// Valgrind finds no ELF symbol in them; but the Go runtime needs the
// pclntab for its stack traces, so every Go binary keeps it, in the section
// .gopclntab (.data.rel.ro.gopclntab in position-independent ones). This
// reads the formats of Go 1.16 and 1.17 (magic 0xfffffffa), 1.18 and 1.19
// (0xfffffff0) and 1.20 and later (0xfffffff1), as Go's debug/gosym does,
// on 64-bit little-endian ELF files only. Pure byte parsing with bounds
// checks on every field: a truncated or corrupt table gives no names and a
// reason, never a read outside the bytes given. Engine-side (no libc, no
// Valgrind) so that the unit tests run it natively on real Go binaries.
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_CORE_GO_PCLNTAB_H
#define APROF_CORE_GO_PCLNTAB_H

#include "internal_vector.h"
#include "types.h"

namespace aprof {

// The unsigned little-endian number in the `bytes` (at most 8) at `p`.
u64 LoadLittleEndian(const u8* p, u32 bytes);

// Reads `size` bytes at `offset` of an open file into `buffer`; false if it
// cannot (the file is shorter, a read error).
using FileReader = bool (*)(void* file, u64 offset, void* buffer, size_t size);

// An open file as the ELF reader sees it.
struct ElfFile {
  FileReader read;
  void* file;  // passed to `read`
  u64 size;    // bytes in the file
};

struct ElfSection {
  u64 address;  // where the object links it (sh_addr)
  u64 offset;   // where its bytes are in the file
  u64 size;
};

// The section called `name` of a 64-bit little-endian ELF file whose bytes
// lie in the file (not SHT_NOBITS). False if there is none or the file is
// not such an ELF file.
bool FindElfSection(const ElfFile& elf, const char* name, ElfSection* section);

// The functions of one Go binary by address, with their names.
class GoFunctionTable {
 public:
  GoFunctionTable() = default;
  GoFunctionTable(const GoFunctionTable&) = delete;
  GoFunctionTable& operator=(const GoFunctionTable&) = delete;

  // Reads the table (in place of any read before) from the bytes of a
  // .gopclntab section. `text_address`
  // is the address of the object's .text section: the start of Go's code,
  // which the entries of Go 1.18 and later count from when the header does
  // not give it. False, the table left empty and *error saying what is
  // wrong, if the bytes are no table of a known format or break any of its
  // bounds or invariants.
  bool Parse(const u8* section, size_t size, u64 text_address, const char** error);

  // The function whose code holds `address` (as the object links it): its
  // name, its entry in *entry. Null outside every function.
  const char* FunctionAt(u64 address, u64* entry) const;

  size_t size() const { return functions_.size(); }
  // The i-th function by address: its entry and name.
  u64 entry(size_t i) const { return functions_[i].entry; }
  const char* name(size_t i) const { return names_.data() + functions_[i].name; }

 private:
  struct Function {
    u64 entry;
    u64 name;  // offset of its NUL-terminated name in names_
  };
  bool Fail(const char* reason, const char** error);

  InternalVector<Function> functions_;
  InternalVector<char> names_;
  u64 end_ = 0;  // where the last function's code ends
};

enum class GoTableStatus {
  kNone,      // the file has no pclntab section (not a Go binary)
  kRead,      // the table is read
  kUnusable,  // the section is there but cannot be read or parsed
};

// Reads the function table of a Go binary into *table. With kUnusable,
// *error says why.
GoTableStatus ReadGoFunctionTable(const ElfFile& elf, GoFunctionTable* table, const char** error);

}  // namespace aprof

#endif  // APROF_CORE_GO_PCLNTAB_H
