// SPDX-License-Identifier: GPL-2.0-or-later
// Function names from Valgrind's debug information or Go's function table
// (function_names.h). An object's Go table is read from its file the first
// time an address in it has no name in Valgrind's debug information, and
// kept for the run (with the objects that have none, so that each file is
// read once).
//
// Copyright (C) 2026, the aprof-trms authors.
#include "function_names.h"

#include "core/go_pclntab.h"
#include "core/internal_vector.h"

namespace aprof {

namespace {

struct ObjectFunctions {
  const HChar* path;
  const GoFunctionTable* go;  // null: the object has no usable Go table
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

// The Go function table of the ELF file at `path`, or null. Says so when
// the file has a table that cannot be used (its routines then keep their
// addresses as names), and with -v how many names it read.
const GoFunctionTable* ReadGoFunctions(const HChar* path) {
  const SysRes opened = VG_(open)(path, VKI_O_RDONLY, 0);
  if (sr_isError(opened)) return nullptr;
  Int fd = static_cast<Int>(sr_Res(opened));
  struct vg_stat status;
  GoFunctionTable* table = New<GoFunctionTable>();
  GoTableStatus read = GoTableStatus::kNone;
  const char* error = nullptr;
  if (VG_(fstat)(fd, &status) == 0 && status.size > 0)
    read = ReadGoFunctionTable({ReadAt, &fd, static_cast<u64>(status.size)}, table, &error);
  VG_(close)(fd);
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

const GoFunctionTable* GoFunctionsOf(const HChar* path) {
  if (!g_objects) g_objects = New<InternalVector<ObjectFunctions>>();
  for (const ObjectFunctions& object : *g_objects)
    if (VG_STREQ(object.path, path)) return object.go;
  const ObjectFunctions object = {VG_(strdup)("aprof.function_names", path), ReadGoFunctions(path)};
  g_objects->push_back(object);
  return object.go;
}

}  // namespace

bool GoFunctionAt(DiEpoch epoch, Addr address, const HChar** name, Addr* entry) {
  const DebugInfo* object = VG_(find_DebugInfo)(epoch, address);
  if (!object) return false;
  const GoFunctionTable* go = GoFunctionsOf(VG_(DebugInfo_get_filename)(object));
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

}  // namespace aprof
