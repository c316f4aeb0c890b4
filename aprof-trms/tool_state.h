// SPDX-License-Identifier: GPL-2.0-or-later
// The tool's long-lived objects, created in post_clo_init. A plain struct
// (zero-initialised, no constructor): global constructors never run inside
// a Valgrind tool.
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_TOOL_STATE_H
#define APROF_TOOL_STATE_H

#include "call_tracker.h"
#include "core/engine.h"
#include "routine_table.h"

namespace aprof {

struct ToolState {
  Engine* engine;
  RoutineTable* routines;
  CallTracker* calls;
};

extern ToolState g_tool;

}  // namespace aprof

#endif  // APROF_TOOL_STATE_H
