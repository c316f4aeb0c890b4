// SPDX-License-Identifier: GPL-2.0-or-later
// The routines of the profiled program (routine_table.h): ids, names,
// objects, and which routines are transparent.
//
// Copyright (C) 2026, the aprof-trms authors.
#include "routine_table.h"

#include "core/glob.h"
#include "function_names.h"
#include "object_lookup.h"
#include "options.h"
#include "valgrind_headers.h"

namespace aprof {

namespace {

const HChar kCostCentre[] = "aprof.routines";

const char* CopyString(const HChar* s) { return VG_(strdup)(kCostCentre, s); }

// The name of a routine without a symbol: its address as the object numbers
// it (as callgrind does; usable with addr2line -e) and the object's file name,
// "0x18e00@libfoo.so.1"; the run-time address outside any known object.
const char* AddressName(const char* object, uptr object_address, bool in_object) {
  const char* base = VG_(strrchr)(object, '/');
  base = base ? base + 1 : object;
  const SizeT size = VG_(strlen)(base) + 24;
  HChar* name = static_cast<HChar*>(VG_(malloc)(kCostCentre, size));
  if (in_object)
    VG_(snprintf)(name, size, "0x%lx@%s", object_address, base);
  else
    VG_(snprintf)(name, size, "0x%lx", object_address);
  return name;
}

// A Go function's name, with "+offset" (in bytes, as Valgrind writes it)
// for an entry inside the function.
const char* GoName(const HChar* function, uptr offset) {
  if (offset == 0) return CopyString(function);
  const SizeT size = VG_(strlen)(function) + 24;
  HChar* name = static_cast<HChar*>(VG_(malloc)(kCostCentre, size));
  VG_(snprintf)(name, size, "%s+%lu", function, offset);
  return name;
}

// Source file ("dir/file" when the debug information has the directory)
// and line of an address; "???" and 0 without line information.
void DescribeSource(DiEpoch epoch, uptr address, RoutineInfo& info) {
  const HChar* file = nullptr;
  const HChar* dir = nullptr;
  UInt line = 0;
  if (!VG_(get_filename_linenum)(epoch, address, &file, &dir, &line)) {
    info.file = CopyString("???");
    info.line = 0;
    return;
  }
  if (dir[0] == '\0' || file[0] == '/') {
    info.file = CopyString(file);
  } else {
    const SizeT size = VG_(strlen)(dir) + VG_(strlen)(file) + 2;
    HChar* path = static_cast<HChar*>(VG_(malloc)(kCostCentre, size));
    VG_(snprintf)(path, size, "%s/%s", dir, file);
    info.file = path;
  }
  info.line = line;
}

// GlobMatches, not VG_(string_match): Valgrind's matcher backtracks (minutes
// on a long C++ name, SIGTERM ignored meanwhile) and asserts on names of a
// million bytes. A routine matches by its demangled or its mangled name.
bool MatchesAnyPattern(const InternalVector<const char*>& patterns, const RoutineInfo& info) {
  for (const char* pattern : patterns)
    if (GlobMatches(pattern, info.name) || GlobMatches(pattern, info.mangled)) return true;
  return false;
}

// glibc's lazy-binding trampolines (_dl_runtime_resolve, _xsave, _xsavec,
// _fxsave, ...): they jump on into the resolved function, which must appear
// called by the real caller.
bool IsLazyBindingResolver(const char* mangled) {
  return VG_(strncmp)(mangled, "_dl_runtime_resolve", 19) == 0;
}

}  // namespace

RoutineId RoutineTable::IdFor(uptr entry) {
  RoutineId& id = ids_.FindOrInsert(entry);
  // Ids are stored plus one so that the zero-initialised new slot means
  // "not described yet".
  if (id == 0) {
    routines_.push_back(Describe(entry));
    id = static_cast<RoutineId>(routines_.size());
  }
  return id - 1;
}

RoutineInfo RoutineTable::Describe(uptr entry) const {
  const DiEpoch epoch = VG_(current_DiEpoch)();
  RoutineInfo info;
  info.entry = entry;

  const HChar* object = nullptr;
  info.object = CopyString(VG_(get_objname)(epoch, entry, &object) ? object : "???");
  const DebugInfo* debug_info = ObjectDebugInfo(epoch, entry);
  info.object_address =
      debug_info ? entry - static_cast<uptr>(VG_(DebugInfo_get_text_bias)(debug_info)) : entry;
  DescribeSource(epoch, entry, info);

  const HChar* raw = nullptr;
  if (VG_(get_fnname_if_entry)(epoch, entry, &raw) && VG_(get_fnname_raw)(epoch, entry, &raw)) {
    info.mangled = CopyString(raw);
    const HChar* demangled = nullptr;
    VG_(demangle)(True, False, info.mangled, &demangled);
    info.name = CopyString(demangled);
  } else if (VG_(get_fnname_w_offset)(epoch, entry, &raw)) {
    // A call into the middle of a known function: "function+offset".
    info.name = CopyString(raw);
    info.mangled = info.name;
  } else if (Addr go_entry; GoFunctionAt(epoch, entry, &raw, &go_entry)) {
    // A stripped Go binary: the name from Go's own table, as above.
    info.name = GoName(raw, entry - go_entry);
    info.mangled = info.name;
  } else {
    info.name = AddressName(info.object, info.object_address, debug_info != nullptr);
    info.mangled = info.name;
  }
  const Options& options = TheOptions();
  info.transparent =
      IsLazyBindingResolver(info.mangled) || MatchesAnyPattern(options.skip_patterns, info);
  info.collect_inside = MatchesAnyPattern(options.collect_inside_patterns, info);
  info.dump_before = MatchesAnyPattern(options.dump_before_patterns, info);
  info.dump_after = MatchesAnyPattern(options.dump_after_patterns, info);
  return info;
}

}  // namespace aprof
