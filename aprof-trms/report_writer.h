// SPDX-License-Identifier: GPL-2.0-or-later
// Writes the report of this process (docs/report-format.md): to a temporary
// file beside the final name, renamed when complete, so that a report is
// whole or absent.
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_REPORT_WRITER_H
#define APROF_REPORT_WRITER_H

#include "core/engine.h"
#include "options.h"
#include "routine_table.h"

namespace aprof {

struct ReportContext {
  const Engine* engine;
  const RoutineTable* routines;
  const Options* options;
  const char* tool_version;
  const char* valgrind_version;
};

// The report file name of this process (--aprof-out-file expanded, absolute).
// The string is heap-allocated; free it with VG_(free).
char* ReportPath();

// At start-up, before the client runs: true if the report can be written
// (the name is not a directory, and its directory accepts the temporary
// file); otherwise prints why. Also fixes the report's permissions from the
// umask Valgrind started with.
bool PrepareReport();

// Writes the report; prints a message and returns false on failure.
bool WriteReport(const ReportContext& context);

}  // namespace aprof

#endif  // APROF_REPORT_WRITER_H
