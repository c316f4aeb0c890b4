// SPDX-License-Identifier: GPL-2.0-or-later
// Control of the profile while the program runs (docs/manual.md, "Profiling
// a server"): numbered dumps of what was recorded so far, zeroing, collection
// on and off and a status line, asked for by gdbserver's monitor commands
// (vgdb, aprof_control), by --dump-every, --dump-before and --dump-after;
// and the report at exit, which covers the run since the latest zero.
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_RUN_CONTROL_H
#define APROF_RUN_CONTROL_H

#include "core/types.h"
#include "report_writer.h"

namespace aprof {

// After command-line processing, before the client runs.
void StartRunControl(const char* tool_version);

// A gdbserver monitor command (VG_USERREQ__GDB_MONITOR_COMMAND): true if it
// is one of the tool's (answered through VG_(gdb_printf)), false to let
// Valgrind say it does not know it.
bool HandleMonitorCommand(const char* command);

// Writes the next numbered dump; `print` tells where it went or why not.
bool DumpProfile(const char* reason, Printer print);

// A thread starts running: writes the dump --dump-every asks for, if due.
void CheckDumpClock();

// --dump-before / --dump-after: an activation of `routine` starts
// (before = true) or has just completed.
void DumpAtRoutine(RoutineId routine, bool before);

// In the child of a fork: its dumps are numbered from 1 again, its
// interval starts at the fork (its profile starts empty there).
void RunControlAfterFork();

// Writes the report at exit; false if it could not be written.
bool WriteFinalReport();

}  // namespace aprof

#endif  // APROF_RUN_CONTROL_H
