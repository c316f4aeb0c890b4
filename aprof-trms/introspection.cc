// SPDX-License-Identifier: GPL-2.0-or-later
// Statistics and sanity checks (introspection.h).
//
// Copyright (C) 2026, the aprof-trms authors.
#include "introspection.h"

#include "core/engine.h"
#include "tool_state.h"
#include "valgrind_headers.h"

namespace aprof {

namespace {

// Sanity checks run, for the statistics: a run that claims to be checked
// can show that it was.
u64 g_cheap_checks;
u64 g_full_checks;

unsigned long long Count(u64 value) { return static_cast<unsigned long long>(value); }

// The process's peak resident memory in KiB (VmHWM of /proc/self/status:
// Valgrind, the tool and the program together), 0 if unknown.
unsigned long long PeakResidentKib() {
  const SysRes fd = VG_(open)("/proc/self/status", VKI_O_RDONLY, 0);
  if (sr_isError(fd)) return 0;
  char text[4096];
  const Int n = VG_(read)(static_cast<Int>(sr_Res(fd)), text, sizeof text - 1);
  VG_(close)(static_cast<Int>(sr_Res(fd)));
  if (n <= 0) return 0;
  text[n] = '\0';
  const char* line = VG_(strstr)(text, "VmHWM:");
  return line ? VG_(strtoull10)(line + 6, nullptr) : 0;
}

// Where the shadow memory went (address space of the blocks handed out;
// only the pages written are resident).
void PrintShadowStatistics(const ShadowAllocator& shadow) {
  static const char* const kKindNames[kShadowKinds] = {"global", "threads", "writer tags"};
  const auto mib = [](u64 bytes) { return Count(bytes >> 20); };
  for (unsigned k = 0; k < kShadowKinds; ++k)
    VG_(dmsg)("aprof-trms: shadow %-11s %6llu MiB at the peak, %6llu MiB its own peak, %6llu MiB at exit\n",
              kKindNames[k], mib(shadow.at_peak().bytes[k]), mib(shadow.kind_peaks().bytes[k]),
              mib(shadow.in_use().bytes[k]));
  const BlockPool& chunks = shadow.chunk_pool();
  VG_(dmsg)("aprof-trms: shadow chunks of %llu KiB: %llu fresh, %llu reused, %zu free at exit; "
            "%zu regions of %llu MiB\n",
            Count(chunks.block_bytes() >> 10), Count(chunks.fresh_count()),
            Count(chunks.reused_count()), chunks.free_block_count(), shadow.region_count(),
            Count(BlockPool::kRegionBytes >> 20));
  VG_(dmsg)("aprof-trms: peak resident memory of the process (VmHWM) %llu KiB\n", PeakResidentKib());
}

// The slow-path event counters (core/platform.h): counted only in a tool
// configured with --enable-stats, which the line says otherwise.
void PrintEventCounters() {
  if (!kCountEvents) {
    VG_(dmsg)("aprof-trms: event counters: not counted (configure --enable-stats counts them)\n");
    return;
  }
  const EngineStatistics& stats = g_tool.engine->statistics();
  VG_(dmsg)("aprof-trms: %llu cells read, %llu of them by ReadCell, %llu of these changing no size, "
            "%llu owner searches; %llu ended at the fence below the counter\n",
            Count(stats.cell_reads), Count(stats.full_reads), Count(stats.unchanged_reads),
            Count(stats.owner_searches), Count(stats.fence_reads));
  VG_(dmsg)("aprof-trms: %llu chunk-cache misses of the thread shadows, %llu of the global shadow\n",
            Count(g_tool.engine->thread_cache_misses()), Count(g_tool.engine->global_cache_misses()));
  VG_(dmsg)("aprof-trms: %llu superblock entry hook calls, %llu frames unwound\n",
            Count(g_tool.calls->superblock_entries()), Count(g_tool.calls->unwound_frames()));
}

void PrintStatistics() {
  const EngineStatistics& stats = g_tool.engine->statistics();
  VG_(dmsg)("aprof-trms: %llu renumberings, %llu unmatched returns, %llu untracked bytes\n",
            Count(stats.renumberings), Count(stats.unmatched_returns),
            Count(stats.untracked_access_bytes));
  VG_(dmsg)("aprof-trms: %llu stack switches, %llu stacks taken over from another thread, "
            "%llu goroutine stacks followed to their copies, %llu ended stacks reused\n",
            Count(g_tool.calls->stack_switches()), Count(g_tool.calls->adopted_stacks()),
            Count(g_tool.calls->copied_stacks()), Count(g_tool.calls->retired_stacks()));
  VG_(dmsg)("aprof-trms: %llu bytes of shadow memory, %zu routines, %zu threads\n",
            Count(g_tool.engine->shadow_bytes()), g_tool.routines->size(),
            g_tool.engine->thread_record_count());
  PrintShadowStatistics(g_tool.engine->shadow_allocator());
  VG_(dmsg)("aprof-trms: %llu chunks private to one thread (no write times), %llu shared later "
            "with writes, %llu of them after their owner exited; %llu bytes of their bitmaps now\n",
            Count(stats.chunks_made_private), Count(stats.private_chunks_shared + stats.orphans_shared),
            Count(stats.orphans_shared), Count(g_tool.engine->private_chunk_bytes()));
  PrintEventCounters();
  VG_(dmsg)("aprof-trms: %llu cheap and %llu full sanity checks passed\n", Count(g_cheap_checks),
            Count(g_full_checks));
}

// A failed check says what broke before Valgrind's core stops the run.
Bool Passed(const Inconsistency& found) {
  if (!found) return True;
  VG_(umsg)("aprof-trms: sanity check failed: %s (thread %u, frame %llu)\n", found.what,
            found.thread, Count(found.frame));
  return False;
}

// Often (Valgrind's scheduler decides): O(1).
Bool CheapSanityCheck() {
  if (!g_tool.engine) return True;  // before post_clo_init
  if (!Passed(g_tool.engine->FindCheapInconsistency())) return False;
  ++g_cheap_checks;
  return True;
}

// Every shadow stack and chunk cache, the tracker against the engine; from
// --sanity-level=4 on also every shadow slot (as long as the shadow is big).
Bool FullSanityCheck() {
  if (!g_tool.engine) return True;
  if (!Passed(g_tool.engine->FindInconsistency(/*walk_shadow=*/VG_(clo_sanity_level) >= 4)))
    return False;
  if (const ThreadId tid = g_tool.calls->FindDisagreement()) {
    VG_(umsg)("aprof-trms: sanity check failed: thread %u: the call tracker's frames and the "
              "engine's pending activations differ\n", tid);
    return False;
  }
  ++g_full_checks;
  return True;
}

}  // namespace

void RegisterIntrospection() {
  VG_(needs_print_stats)(PrintStatistics);
  VG_(needs_sanity_checks)(CheapSanityCheck, FullSanityCheck);
}

void PrintStatisticsAtExit() {
  if (VG_(clo_stats) || VG_(clo_verbosity) > 1) PrintStatistics();
}

}  // namespace aprof
