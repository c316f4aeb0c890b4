// SPDX-License-Identifier: GPL-2.0-or-later
// Function names from Valgrind's debug information or Go's function table,
// and function entries from the unwind table (function_names.h). An
// object's tables are read from its file the first time an address in it
// has no name in Valgrind's debug information, and kept for the run (with
// the objects that have none, so that each file is read once).
//
// Copyright (C) 2026, the aprof-trms authors.
#include "function_names.h"

#include "core/eh_frame_hdr.h"
#include "core/go_pclntab.h"
#include "core/internal_vector.h"

namespace aprof {

namespace {

struct ObjectFunctions {
  const HChar* path;
  const GoFunctionTable* go;  // null: the object has no usable Go table
  // Null: the object has a Go table (which marks every entry) or no usable
  // .eh_frame_hdr.
  const FunctionStarts* unwind;
};

// Objects whose file was looked at; created on first use (global
// constructors do not run in a tool).
InternalVector<ObjectFunctions>* g_objects;

bool ReadAt(void* file, u64 offset, void* buffer, size_t size) {
  const Int fd = *static_cast<const Int*>(file);
  if (VG_(lseek)(fd, static_cast<Off64T>(offset), VKI_SEEK_SET) != static_cast<Off64T>(offset))
    return false;
  HChar* to = static_cast<HChar*>(buffer);
  while (size > 0) {
    const Int chunk = size < (1u << 30) ? static_cast<Int>(size) : (1 << 30);
    const Int got = VG_(read)(fd, to, chunk);
    if (got <= 0) return false;
    to += got;
    size -= static_cast<size_t>(got);
  }
  return true;
}

// The Go function table of the ELF file, or null. Says so when the file
// has a table that cannot be used (its routines then keep their addresses
// as names), and with -v how many names it read.
const GoFunctionTable* ReadGoFunctions(const HChar* path, const ElfFile& elf) {
  GoFunctionTable* table = New<GoFunctionTable>();
  const char* error = nullptr;
  const GoTableStatus read = ReadGoFunctionTable(elf, table, &error);
  if (read == GoTableStatus::kUnusable)
    VG_(umsg)("aprof-trms: %s: Go's function table (.gopclntab) is unusable (%s): its routines "
              "are named by address\n", path, error);
  if (read != GoTableStatus::kRead) {
    Delete(table);
    return nullptr;
  }
  if (VG_(clo_verbosity) > 1)
    VG_(umsg)("aprof-trms: %s: %lu function names from Go's function table\n", path,
              static_cast<unsigned long>(table->size()));
  return table;
}

// The function starts of the ELF file's unwind table, or null. Says so
// when the table cannot be used (tail jumps into its symbol-less functions
// are then not seen as calls), and with -v how many starts it read.
const FunctionStarts* ReadUnwindStarts(const HChar* path, const ElfFile& elf) {
  FunctionStarts* starts = New<FunctionStarts>();
  const char* error = nullptr;
  const UnwindTableStatus read = ReadFunctionStarts(elf, starts, &error);
  if (read == UnwindTableStatus::kUnusable)
    VG_(umsg)("aprof-trms: %s: the unwind table (.eh_frame_hdr) is unusable (%s): tail jumps "
              "into its functions without a symbol are not calls\n", path, error);
  if (read != UnwindTableStatus::kRead) {
    Delete(starts);
    return nullptr;
  }
  if (VG_(clo_verbosity) > 1)
    VG_(umsg)("aprof-trms: %s: %lu function starts from the unwind table\n", path,
              static_cast<unsigned long>(starts->size()));
  return starts;
}

// The tables of the ELF file at `path`, opened once for both.
ObjectFunctions ReadObjectFunctions(const HChar* path) {
  ObjectFunctions object = {VG_(strdup)("aprof.function_names", path), nullptr, nullptr};
  const SysRes opened = VG_(open)(path, VKI_O_RDONLY, 0);
  if (sr_isError(opened)) return object;
  Int fd = static_cast<Int>(sr_Res(opened));
  struct vg_stat status;
  if (VG_(fstat)(fd, &status) == 0 && status.size > 0) {
    const ElfFile elf = {ReadAt, &fd, static_cast<u64>(status.size)};
    object.go = ReadGoFunctions(path, elf);
    if (!object.go) object.unwind = ReadUnwindStarts(path, elf);
  }
  VG_(close)(fd);
  return object;
}

ObjectFunctions FunctionsOf(const HChar* path) {
  if (!g_objects) g_objects = New<InternalVector<ObjectFunctions>>();
  for (const ObjectFunctions& object : *g_objects)
    if (VG_STREQ(object.path, path)) return object;
  const ObjectFunctions object = ReadObjectFunctions(path);
  g_objects->push_back(object);
  return object;
}

}  // namespace

bool GoFunctionAt(DiEpoch epoch, Addr address, const HChar** name, Addr* entry) {
  const DebugInfo* object = VG_(find_DebugInfo)(epoch, address);
  if (!object) return false;
  const GoFunctionTable* go = FunctionsOf(VG_(DebugInfo_get_filename)(object)).go;
  if (!go) return false;
  // The table holds addresses as the object links them.
  const Addr bias = static_cast<Addr>(VG_(DebugInfo_get_text_bias)(object));
  u64 object_entry = 0;
  const char* found = go->FunctionAt(address - bias, &object_entry);
  if (!found) return false;
  *name = found;
  *entry = static_cast<Addr>(object_entry) + bias;
  return true;
}

// Go's table only where Valgrind knows no function at all: a binary with
// symbols is described as before, whatever its table says.
bool FunctionNameAt(DiEpoch epoch, Addr address, const HChar** name) {
  Addr entry;
  return VG_(get_fnname)(epoch, address, name) || GoFunctionAt(epoch, address, name, &entry);
}

bool FunctionNameIfEntry(DiEpoch epoch, Addr address, const HChar** name) {
  if (VG_(get_fnname_if_entry)(epoch, address, name)) return true;
  if (VG_(get_fnname)(epoch, address, name)) return false;
  Addr entry;
  return GoFunctionAt(epoch, address, name, &entry) && entry == address;
}

// Where Valgrind knows no function, in an object without a Go table: the
// unwind table's starts in .text (VG_(find_DebugInfo) knows an object by
// its .text; the FDEs of the PLT sections, outside it, are never asked).
bool IsFunctionEntry(DiEpoch epoch, Addr address) {
  const HChar* name;
  if (FunctionNameIfEntry(epoch, address, &name)) return true;
  if (VG_(get_fnname)(epoch, address, &name)) return false;  // inside a function
  const DebugInfo* object = VG_(find_DebugInfo)(epoch, address);
  if (!object) return false;
  const FunctionStarts* starts = FunctionsOf(VG_(DebugInfo_get_filename)(object)).unwind;
  // The table holds addresses as the object links them.
  const Addr bias = static_cast<Addr>(VG_(DebugInfo_get_text_bias)(object));
  return starts && starts->Contains(address - bias);
}

}  // namespace aprof
