// Copyright (C) 2026, the aprof-trms authors.
// SPDX-License-Identifier: GPL-2.0-or-later
#include "routine_table.h"

#include "options.h"
#include "valgrind_headers.h"

namespace aprof {

namespace {

const HChar kCostCentre[] = "aprof.routines";

const char* CopyString(const HChar* s) { return VG_(strdup)(kCostCentre, s); }

const char* AddressName(uptr address) {
  HChar buffer[24];
  VG_(snprintf)(buffer, sizeof buffer, "0x%lx", address);
  return CopyString(buffer);
}

bool MatchesSkipPattern(const char* name) {
  for (const char* pattern : TheOptions().skip_patterns)
    if (VG_(string_match)(pattern, name)) return true;
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
  } else {
    info.name = AddressName(entry);
    info.mangled = info.name;
  }
  info.transparent = IsLazyBindingResolver(info.mangled) || MatchesSkipPattern(info.name) ||
                     MatchesSkipPattern(info.mangled);
  return info;
}

}  // namespace aprof
