// SPDX-License-Identifier: GPL-2.0-or-later
// Dumps, zeroing and collection control of a running program
// (run_control.h).
//
// Copyright (C) 2026, the aprof-trms authors.
#include "run_control.h"

#include "aprof_config.h"
#include "options.h"
#include "tool_state.h"
#include "valgrind_headers.h"

namespace aprof {

namespace {

// Zero-initialised (no constructor runs inside the tool).
struct ControlState {
  const char* tool_version;
  u64 dumps;           // dumps numbered so far
  u64 zeroes;          // zero commands so far
  u64 interval_start;  // run time (ms) of the latest zero or of the fork
  u64 next_dump_at;    // --dump-every: run time (ms) of the next dump
};
ControlState control;

u64 RunTimeMs() { return VG_(read_millisecond_timer)(); }

ReportContext ContextNow(u64 dump, const char* reason) {
  g_tool.calls->FlushCost();  // the running thread's cost so far is its own
  return ReportContext{g_tool.engine,        g_tool.routines,
                       &TheOptions(),        control.tool_version,
                       APROF_VALGRIND_VERSION,
                       {dump, control.interval_start, RunTimeMs(), control.zeroes, reason}};
}

void ZeroProfile() {
  g_tool.engine->ZeroProfiles();
  ++control.zeroes;
  control.interval_start = RunTimeMs();
}

u64 ActivationsRecorded() {
  u64 calls = 0;
  const Engine& engine = *g_tool.engine;
  for (size_t i = 0; i < engine.thread_record_count(); ++i)
    for (const RoutineTotals& totals : engine.thread_record(i).profile.routines())
      calls += totals.calls;
  return calls;
}

void PrintStatus() {
  const Engine& engine = *g_tool.engine;
  u64 live = 0;
  for (size_t i = 0; i < engine.thread_record_count(); ++i)
    if (engine.thread_record(i).live) ++live;
  VG_(gdb_printf)("collection: %s\n", engine.recording() ? "on" : "off");
  VG_(gdb_printf)("threads: %llu running, %llu since the start\n",
                  static_cast<unsigned long long>(live),
                  static_cast<unsigned long long>(engine.thread_record_count()));
  VG_(gdb_printf)("activations recorded: %llu since %s at %llu ms of run time\n",
                  static_cast<unsigned long long>(ActivationsRecorded()),
                  control.zeroes ? "the latest zero" : "the start",
                  static_cast<unsigned long long>(control.interval_start));
  VG_(gdb_printf)("shadow memory in use: %llu bytes (peak %llu)\n",
                  static_cast<unsigned long long>(engine.shadow_bytes()),
                  static_cast<unsigned long long>(engine.shadow_peak_bytes()));
  VG_(gdb_printf)("dumps written: %llu, zeroes: %llu, run time: %llu ms\n",
                  static_cast<unsigned long long>(control.dumps),
                  static_cast<unsigned long long>(control.zeroes),
                  static_cast<unsigned long long>(RunTimeMs()));
}

void PrintHelp() {
  VG_(gdb_printf)(
      "aprof-trms monitor commands:\n"
      "  dump [<reason>]   write what was recorded so far to the next numbered dump,\n"
      "                    <report file>.<n> (pending activations stay pending)\n"
      "  zero              forget the recorded profile (input sizes stay exact)\n"
      "  collect on|off    record completed activations, or not\n"
      "  status            collection, threads, activations recorded, shadow memory\n");
}

// Skips blanks; the rest of the command from there.
const char* SkipBlanks(const char* text) {
  while (*text == ' ' || *text == '\t') ++text;
  return text;
}

// The length of the word at `text` (up to a blank or the end).
SizeT WordLength(const char* text) {
  SizeT n = 0;
  while (text[n] != '\0' && text[n] != ' ' && text[n] != '\t') ++n;
  return n;
}

bool WordIs(const char* word, SizeT length, const char* expected) {
  return VG_(strlen)(expected) == length && VG_(strncmp)(word, expected, length) == 0;
}

void CollectCommand(const char* argument) {
  const SizeT length = WordLength(argument);
  const bool on = WordIs(argument, length, "on");
  if ((!on && !WordIs(argument, length, "off")) || *SkipBlanks(argument + length) != '\0') {
    VG_(gdb_printf)("aprof-trms: error: 'collect' takes 'on' or 'off', not '%s'\n", argument);
    return;
  }
  g_tool.engine->set_recording(on);
  VG_(gdb_printf)("aprof-trms: collection %s\n", on ? "on" : "off");
}

}  // namespace

void StartRunControl(const char* tool_version) {
  control.tool_version = tool_version;
  const u64 period = TheOptions().dump_every_seconds * 1000;
  if (period > 0) control.next_dump_at = RunTimeMs() + period;
}

bool DumpProfile(const char* reason, Printer print) {
  const ReportContext context = ContextNow(++control.dumps, reason);
  return WriteDump(context, print);
}

bool HandleMonitorCommand(const char* command) {
  command = SkipBlanks(command);
  const SizeT length = WordLength(command);
  const char* argument = SkipBlanks(command + length);
  if (WordIs(command, length, "help")) {
    PrintHelp();
  } else if (WordIs(command, length, "dump")) {
    DumpProfile(*argument ? argument : "monitor command", VG_(gdb_printf));
  } else if (WordIs(command, length, "zero")) {
    ZeroProfile();
    VG_(gdb_printf)("aprof-trms: profile zeroed (zero %llu)\n",
                    static_cast<unsigned long long>(control.zeroes));
  } else if (WordIs(command, length, "collect")) {
    CollectCommand(argument);
  } else if (WordIs(command, length, "status")) {
    PrintStatus();
  } else {
    return false;
  }
  return true;
}

void CheckDumpClock() {
  const u64 period = TheOptions().dump_every_seconds * 1000;
  if (period == 0) return;
  const u64 now = RunTimeMs();
  if (now < control.next_dump_at) return;
  // Missed periods (a thread blocked for long) make one dump, not several.
  while (control.next_dump_at <= now) control.next_dump_at += period;
  DumpProfile("--dump-every", VG_(umsg));
}

void DumpAtRoutine(RoutineId routine, bool before) {
  const RoutineInfo& info = g_tool.routines->info(routine);
  if (!(before ? info.dump_before : info.dump_after)) return;
  const SizeT size = VG_(strlen)(info.name) + 16;
  HChar* reason = static_cast<HChar*>(VG_(malloc)("aprof.dump", size));
  VG_(snprintf)(reason, size, "%s %s", before ? "before" : "after", info.name);
  DumpProfile(reason, VG_(umsg));
  VG_(free)(reason);
}

void RunControlAfterFork() {
  control.dumps = 0;
  control.interval_start = RunTimeMs();
}

bool WriteFinalReport() { return WriteReport(ContextNow(0, "exit")); }

}  // namespace aprof
