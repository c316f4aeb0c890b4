// SPDX-License-Identifier: GPL-2.0-or-later
// Routines of the profiled program, identified by the address where their
// activations start (a call target). Names, objects and whether a routine
// is profiled at all come from Valgrind's debug information (or, in a
// stripped Go binary, Go's function table: function_names.h) and the
// --skip-routine patterns.
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_ROUTINE_TABLE_H
#define APROF_ROUTINE_TABLE_H

#include "core/hash_map.h"
#include "core/internal_vector.h"
#include "core/types.h"

namespace aprof {

struct RoutineInfo {
  uptr entry;
  // The entry as the object numbers it (nm, addr2line, callgrind): entry less
  // the object's load bias; the entry itself outside any known object.
  uptr object_address;
  const char* object;   // path of the ELF object, "???" if unknown
  const char* name;     // demangled; "0x<object_address>@<object file name>" without a symbol
  const char* mangled;  // as in the symbol table; as `name` without one
  const char* file;     // source file of the entry (debug information), "???" if unknown
  u32 line;             // its line, 0 if unknown
  // Not profiled: no activation is pushed for it, so its cost and input
  // count for its caller. True for the lazy-binding resolver and for
  // routines matching --skip-routine.
  bool transparent;
  // Matches --collect-inside, --dump-before, --dump-after (run_control.h).
  bool collect_inside;
  bool dump_before;
  bool dump_after;
};

class RoutineTable {
 public:
  RoutineTable() = default;
  RoutineTable(const RoutineTable&) = delete;
  RoutineTable& operator=(const RoutineTable&) = delete;

  // The routine whose activations start at `entry`, described on first use.
  RoutineId IdFor(uptr entry);
  const RoutineInfo& info(RoutineId id) const { return routines_[id]; }
  size_t size() const { return routines_.size(); }

 private:
  struct AddressTraits {
    static u64 Hash(const uptr& a) { return MixHash(a); }
    static bool Equal(const uptr& a, const uptr& b) { return a == b; }
  };

  RoutineInfo Describe(uptr entry) const;

  HashMap<uptr, RoutineId, AddressTraits> ids_;
  InternalVector<RoutineInfo> routines_;
};

}  // namespace aprof

#endif  // APROF_ROUTINE_TABLE_H
