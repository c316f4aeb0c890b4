// SPDX-License-Identifier: GPL-2.0-or-later
// aprof-trms: Valgrind tool entry points. Wires Valgrind's core events to the
// call tracker, the engine, the system-call input tracking and the report
// writer.
//
// Copyright (C) 2026, the aprof-trms authors.

// Our own headers first, before the Valgrind headers define macros such as
// Bool/True/False that could clash with engine identifiers.
#include "aprof_config.h"
#include "call_tracker.h"
#include "core/engine.h"
#include "instrument.h"
#include "introspection.h"
#include "options.h"
#include "report_writer.h"
#include "routine_table.h"
#include "run_control.h"
#include "runtime_hooks.h"
#include "syscall_input.h"
#include "tool_state.h"

// Capture the package version now: some Valgrind headers (pub_tool_redir.h)
// pull in Valgrind's own config.h, which defines the same PACKAGE_* macros.
static const char kToolVersion[] = PACKAGE_VERSION;
#undef PACKAGE
#undef PACKAGE_BUGREPORT
#undef PACKAGE_NAME
#undef PACKAGE_STRING
#undef PACKAGE_TARNAME
#undef PACKAGE_URL
#undef PACKAGE_VERSION
#undef VERSION

#include "aprof-trms.h"
#include "valgrind_headers.h"

namespace aprof {

ToolState g_tool;
const ExitInfo* g_last_exit;
u64 g_pending_cost;
u64 g_rep_bytes;
const ExitInfo kUnknownOrigin{ExitKind::kSystem, nullptr};

// --- Hooks called from instrumented code ---------------------------------------

void OnSuperblockEntry(SuperblockInfo* block, uptr stack_pointer) {
  g_tool.calls->OnSuperblockEntry(block, stack_pointer);
}

void OnRead(uptr address, uptr size) { g_tool.engine->Read(address, size); }

void OnWrite(uptr address, uptr size) { g_tool.engine->Write(address, size); }

void OnWriteTagged(uptr address, uptr size) { g_tool.engine->WriteTagged(address, size); }

void OnReadWide(uptr address, uptr size) { g_tool.engine->ReadWide(address, size); }

void OnWriteWide(uptr address, uptr size) { g_tool.engine->WriteWide<false>(address, size); }

void OnWriteWideTagged(uptr address, uptr size) { g_tool.engine->WriteWide<true>(address, size); }

namespace {

// --- Threads and signals ---------------------------------------------------------

void ThreadRuns(ThreadId tid, ULong) {
  g_tool.calls->SwitchTo(tid);
  CheckDumpClock();
}

void ThreadCreated(ThreadId, ThreadId child) { g_tool.calls->ThreadCreated(child); }

void ThreadExits(ThreadId tid) { g_tool.calls->ThreadExited(tid); }

void SignalDelivered(ThreadId tid, Int, Bool) { g_tool.calls->SignalDelivered(tid); }

void SignalReturned(ThreadId tid, Int) { g_tool.calls->SignalReturned(tid); }

// The child of a fork() profiles itself from the fork on and writes its own
// report (the file name is expanded again with the child's pid, or gets it
// appended: never the parent's file).
void ForkedChild(ThreadId tid) {
  g_tool.calls->ResetAfterFork(tid);
  ReportAfterFork();
  RunControlAfterFork();
}

// --- Memory maps -----------------------------------------------------------------

// Memory mapped again where the program unmapped some is new memory: its
// shadow is forgotten, and given back, so the shadow shrinks with the program.
void MemoryUnmapped(Addr address, SizeT length) { g_tool.engine->Unmapped(address, length); }

// --- Client requests -------------------------------------------------------------

Bool HandleClientRequest(ThreadId, UWord* args, UWord* result) {
  if (args[0] == VG_USERREQ__GDB_MONITOR_COMMAND) {
    const bool handled = HandleMonitorCommand(reinterpret_cast<const HChar*>(args[1]));
    *result = handled ? 1 : 0;
    return handled ? True : False;
  }
  if (!VG_IS_TOOL_USERREQ('A', 'T', args[0])) return False;
  switch (args[0]) {
    case VG_USERREQ__APROF_TRMS_START_COLLECTION:
      g_tool.engine->set_recording(true);
      break;
    case VG_USERREQ__APROF_TRMS_STOP_COLLECTION:
      g_tool.engine->set_recording(false);
      break;
    default:
      return False;
  }
  *result = 0;
  return True;
}

// --- Tool life cycle ---------------------------------------------------------------

Bool ProcessOption(const HChar* arg) { return ProcessCommandLineOption(arg) ? True : False; }

void PostCommandLineInit() {
  const Options& options = TheOptions();
  if (options.input_sources && !options.track_trms) {
    VG_(fmsg)("aprof-trms: --input-sources=yes needs --trms=yes (sources are those of induced reads)\n");
    VG_(exit)(1);
  }
  if (!PrepareReport()) VG_(exit)(1);

  EngineOptions engine_options;
  engine_options.resolution_shift = static_cast<unsigned>(__builtin_ctz(options.memory_resolution));
  engine_options.overflow_threshold = options.overflow_threshold;
  engine_options.track_induced = options.track_trms;
  engine_options.track_sources = options.input_sources;
  if (options.collect_context) engine_options.context_depth = options.context_depth;
  g_tool.engine = New<Engine>(engine_options);
  g_tool.engine->set_recording(options.collect_at_start);
  if (options.collect_inside_patterns.size() > 0) g_tool.engine->CollectOnlyInside();
  g_tool.routines = New<RoutineTable>();
  g_tool.calls = New<CallTracker>(*g_tool.engine, *g_tool.routines);
  if (options.dump_before_patterns.size() > 0 || options.dump_after_patterns.size() > 0)
    g_tool.calls->WatchDumpRoutines();
  StartRunControl(kToolVersion);
  VG_(atfork)(nullptr, nullptr, ForkedChild);
}

void Finish(Int) {
  g_tool.calls->ExitAllThreads();
  const bool written = WriteFinalReport();
  PrintStatisticsAtExit();
  // A lost report is a failed run, whatever the program's own status.
  if (!written) VG_(exit)(1);
}

void PreCommandLineInit() {
  VG_(details_name)("aprof-trms");
  VG_(details_version)(kToolVersion);
  VG_(details_description)("input-sensitive profiler for multithreaded programs (TRMS)");
  VG_(details_copyright_author)("Copyright (C) 2026, the aprof-trms authors; GPL-2.0-or-later");
  VG_(details_bug_reports_to)("the aprof-trms issue tracker");

  VG_(basic_tool_funcs)(PostCommandLineInit, Instrument, Finish);
  VG_(needs_command_line_options)(ProcessOption, PrintUsage, PrintDebugUsage);
  VG_(needs_client_requests)(HandleClientRequest);
  RegisterIntrospection();

  VG_(track_start_client_code)(ThreadRuns);
  VG_(track_pre_thread_ll_create)(ThreadCreated);
  VG_(track_pre_thread_ll_exit)(ThreadExits);
  VG_(track_pre_deliver_signal)(SignalDelivered);
  VG_(track_post_deliver_signal)(SignalReturned);
  VG_(track_die_mem_munmap)(MemoryUnmapped);
  RegisterSyscallInputTracking();

  // One superblock = one guest entry point (as callgrind does): needed by
  // call/return detection and by the basic-block cost.
  VG_(clo_vex_control).iropt_unroll_thresh = 0;
  VG_(clo_vex_control).guest_chase = False;
}

}  // namespace
}  // namespace aprof

extern "C" void aprof_pre_clo_init(void) { aprof::PreCommandLineInit(); }

VG_DETERMINE_INTERFACE_VERSION(aprof_pre_clo_init)
