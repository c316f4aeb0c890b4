// SPDX-License-Identifier: GPL-2.0-or-later
// The ELF object of a code address in any of its sections (object_lookup.h).
//
// Copyright (C) 2026, the aprof-trms authors.
#include "object_lookup.h"

namespace aprof {

const DebugInfo* ObjectDebugInfo(DiEpoch epoch, Addr address) {
  if (const DebugInfo* di = VG_(find_DebugInfo)(epoch, address)) return di;
  // Outside .text: the object whose file is mapped there.
  const HChar* object = nullptr;
  if (!VG_(get_objname)(epoch, address, &object)) return nullptr;
  for (const DebugInfo* di = VG_(next_DebugInfo)(nullptr); di; di = VG_(next_DebugInfo)(di))
    if (VG_(strcmp)(VG_(DebugInfo_get_filename)(di), object) == 0) return di;
  return nullptr;
}

}  // namespace aprof
