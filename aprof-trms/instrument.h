// SPDX-License-Identifier: GPL-2.0-or-later
// VEX instrumentation: every superblock starts with a call that tracks
// calls, returns and cost; every memory access of the guest reaches the
// engine; every exit records which exit was taken.
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_INSTRUMENT_H
#define APROF_INSTRUMENT_H

#include "valgrind_headers.h"

namespace aprof {

IRSB* Instrument(VgCallbackClosure* closure, IRSB* sb_in, const VexGuestLayout* layout,
                 const VexGuestExtents* extents, const VexArchInfo* host_arch,
                 IRType guest_word_type, IRType host_word_type);

}  // namespace aprof

#endif  // APROF_INSTRUMENT_H
