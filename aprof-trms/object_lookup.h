// SPDX-License-Identifier: GPL-2.0-or-later
// Which ELF object's debug information describes a code address, in any of
// its sections: VG_(find_DebugInfo) only answers for addresses inside .text,
// but PLT stubs (.plt, .plt.got, .plt.sec) and .init lie outside it.
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_OBJECT_LOOKUP_H
#define APROF_OBJECT_LOOKUP_H

#include "valgrind_headers.h"

namespace aprof {

// The debug information of the object mapped at `address`, or null. One
// load bias (VG_(DebugInfo_get_text_bias)) applies to all its sections.
const DebugInfo* ObjectDebugInfo(DiEpoch epoch, Addr address);

}  // namespace aprof

#endif  // APROF_OBJECT_LOOKUP_H
