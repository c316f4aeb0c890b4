// SPDX-License-Identifier: GPL-2.0-or-later
// Command-line options of the tool: parsing, validation and --help text.
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_OPTIONS_H
#define APROF_OPTIONS_H

#include "core/engine.h"
#include "core/internal_vector.h"

namespace aprof {

enum class CostMetric { kBasicBlocks, kInstructions };
enum class SyscallInput { kAll, kIo };

struct Options {
  unsigned memory_resolution = 4;  // bytes per cell
  CostMetric cost_metric = CostMetric::kBasicBlocks;
  const char* out_file = "aprof-trms.out.%p";
  SyscallInput syscall_input = SyscallInput::kAll;
  InternalVector<const char*> skip_patterns;  // --skip-routine globs
  InternalVector<const char*> collect_inside_patterns;  // --collect-inside globs
  InternalVector<const char*> dump_before_patterns;     // --dump-before globs
  InternalVector<const char*> dump_after_patterns;      // --dump-after globs
  u64 dump_every_seconds = 0;  // --dump-every; 0: never
  bool collect_at_start = true;
  bool track_trms = true;  // --trms=no: RMS only
  bool input_sources = false;  // --input-sources=yes: who produced induced input
  bool collect_context = false;  // --collect-context=yes: profiles per calling context
  u32 context_depth = 64;        // --context-depth: deepest context kept (docs/manual.md)
  // --go-async-preemption=yes: Go's runtime may preempt a goroutine by a
  // signal; by default its requests are dropped (instrument.cc).
  bool go_async_preemption = false;
  Timestamp overflow_threshold = kMaxTimestamp;
};

// The options of this run (valid after command-line processing).
Options& TheOptions();

// Valgrind's command-line hooks.
bool ProcessCommandLineOption(const char* arg);
void PrintUsage();
void PrintDebugUsage();

const char* CostMetricName(CostMetric metric);
const char* SyscallInputName(SyscallInput input);

}  // namespace aprof

#endif  // APROF_OPTIONS_H
