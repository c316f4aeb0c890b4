// SPDX-License-Identifier: GPL-2.0-or-later
// Writes the report of this process (docs/report-format.md): to a new
// temporary file beside the final name, under a name no one can predict,
// renamed when complete, so that a report is whole or absent and nothing is
// written through a link or into a FIFO or device (docs/manual.md, "The
// report file").
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_REPORT_WRITER_H
#define APROF_REPORT_WRITER_H

#include "core/engine.h"
#include "options.h"
#include "routine_table.h"

namespace aprof {

// The part of the run a report covers (its `interval` record): since the
// latest zero (or the start) up to now.
struct ReportInterval {
  u64 dump;        // 1, 2, 3... for dumps; 0 for the report at exit
  u64 start_ms;    // run time of the latest zero, 0 if none
  u64 end_ms;      // run time when written
  u64 zeroes;      // zeroes before the interval: reports of one process with
                   // the same count overlap, with different counts do not
  const char* reason;
};

// Where messages go: VG_(umsg) (the log), VG_(fmsg) at start-up,
// VG_(gdb_printf) for a monitor command (to vgdb).
using Printer = unsigned (*)(const char* format, ...);

struct ReportContext {
  const Engine* engine;
  const RoutineTable* routines;
  const Options* options;
  const char* tool_version;
  const char* valgrind_version;
  ReportInterval interval;
};

// The report file name of this process (--aprof-out-file expanded, absolute;
// in a forked child, ".<pid>" appended if the name has no %p). The string
// is heap-allocated; free it with VG_(free).
char* ReportPath();

// In the child of a fork: from now on the report name is the child's own
// (ReportPath), which the log says when --aprof-out-file has no %p.
void ReportAfterFork();

// At start-up, before the client runs: true if the report can be written
// (nothing but a regular file or a symbolic link has the name, and its
// directory accepts a new file, created and removed at once); otherwise
// prints why. Also fixes the report's permissions from the umask Valgrind
// started with.
bool PrepareReport();

// Writes the report; prints a message and returns false on failure.
bool WriteReport(const ReportContext& context);

// Writes dump number context.interval.dump to "<ReportPath()>.<number>",
// as safely as the report; prints why not with `print` and returns false on
// failure, with `print` where it went on success.
bool WriteDump(const ReportContext& context, Printer print);

}  // namespace aprof

#endif  // APROF_REPORT_WRITER_H
