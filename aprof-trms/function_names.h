// SPDX-License-Identifier: GPL-2.0-or-later
// Function names of code addresses: Valgrind's debug information first,
// then, where it knows no function, the Go function table (pclntab) of the
// object, which stripped Go binaries keep (core/go_pclntab.h), or else the
// function starts of the object's unwind table (core/eh_frame_hdr.h), which
// other stripped objects keep. Everything that decides by a function's
// name or entry (routine names, call detection, Go's preemption and
// goroutine switches) asks here, so that a stripped binary is profiled as
// the same binary with its symbols (the routines of a stripped C binary
// keep their addresses as names).
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_FUNCTION_NAMES_H
#define APROF_FUNCTION_NAMES_H

#include "valgrind_headers.h"

namespace aprof {

// The name of the function whose code holds `address`.
bool FunctionNameAt(DiEpoch epoch, Addr address, const HChar** name);

// The same, only if `address` is the function's first instruction.
bool FunctionNameIfEntry(DiEpoch epoch, Addr address, const HChar** name);

// Whether `address` is a function's first instruction: one with a name
// (FunctionNameIfEntry), or, where no function is known, a start of the
// object's unwind table. Call detection asks this.
bool IsFunctionEntry(DiEpoch epoch, Addr address);

// From the Go function table alone: the function holding `address`, its
// name and its entry (a run-time address).
bool GoFunctionAt(DiEpoch epoch, Addr address, const HChar** name, Addr* entry);

}  // namespace aprof

#endif  // APROF_FUNCTION_NAMES_H
