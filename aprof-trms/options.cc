// SPDX-License-Identifier: GPL-2.0-or-later
// The tool's command-line options (options.h): parsing, validation, --help.
//
// Copyright (C) 2026, the aprof-trms authors.
#include "options.h"

#include "valgrind_headers.h"

namespace aprof {

namespace {

// Zero-initialised storage: global constructors never run inside the tool,
// so the options are constructed on first use.
alignas(Options) char options_storage[sizeof(Options)];
bool options_constructed = false;

// Reports a bad value; while the command line is parsed this stops Valgrind
// with exit status 1, like the core's own option checks.
void BadOption(const char* arg, const char* expected) {
  VG_(fmsg_bad_option)(arg, "expected %s\n", expected);
}

// A plain decimal number: digits only, no sign, blank or suffix, and no
// leading zero (elsewhere "08" could mean octal; "4k" or " 4" a typo).
// Stops Valgrind with a message unless lo <= value <= hi.
u64 ParseNumber(const char* arg, const char* value, u64 lo, u64 hi, const char* expected) {
  u64 n = 0;
  bool ok = value[0] >= '0' && value[0] <= '9' && !(value[0] == '0' && value[1] != '\0');
  for (const char* p = value; ok && *p; ++p) {
    ok = *p >= '0' && *p <= '9' && n <= (hi - static_cast<u64>(*p - '0')) / 10;
    n = n * 10 + static_cast<u64>(*p - '0');
  }
  if (!ok || n < lo) BadOption(arg, expected);
  return n;
}

}  // namespace

Options& TheOptions() {
  if (!options_constructed) {
    new (options_storage) Options();
    options_constructed = true;
  }
  return *reinterpret_cast<Options*>(options_storage);
}

bool ProcessCommandLineOption(const char* arg) {
  Options& o = TheOptions();
  const HChar* value;
  if (VG_STR_CLO(arg, "--memory-resolution", value)) {
    const char* expected = "1, 2, 4, 8 or 16 (bytes per memory cell)";
    const u64 n = ParseNumber(arg, value, 1, 16, expected);
    if ((n & (n - 1)) != 0) BadOption(arg, expected);
    o.memory_resolution = static_cast<unsigned>(n);
  } else if (VG_STR_CLO(arg, "--cost-metric", value)) {
    if (VG_STREQ(value, "bb"))
      o.cost_metric = CostMetric::kBasicBlocks;
    else if (VG_STREQ(value, "instructions"))
      o.cost_metric = CostMetric::kInstructions;
    else
      BadOption(arg, "bb or instructions");
  } else if (VG_STR_CLO(arg, "--aprof-out-file", value)) {
    if (value[0] == '\0') BadOption(arg, "a file name");
    o.out_file = value;
  } else if (VG_STR_CLO(arg, "--syscall-input", value)) {
    if (VG_STREQ(value, "all"))
      o.syscall_input = SyscallInput::kAll;
    else if (VG_STREQ(value, "io"))
      o.syscall_input = SyscallInput::kIo;
    else
      BadOption(arg, "all or io");
  } else if (VG_STR_CLO(arg, "--skip-routine", value)) {
    if (value[0] == '\0') BadOption(arg, "a routine name pattern");
    o.skip_patterns.push_back(value);
  } else if (VG_STR_CLO(arg, "--collect-inside", value)) {
    if (value[0] == '\0') BadOption(arg, "a routine name pattern");
    o.collect_inside_patterns.push_back(value);
  } else if (VG_STR_CLO(arg, "--dump-before", value)) {
    if (value[0] == '\0') BadOption(arg, "a routine name pattern");
    o.dump_before_patterns.push_back(value);
  } else if (VG_STR_CLO(arg, "--dump-after", value)) {
    if (value[0] == '\0') BadOption(arg, "a routine name pattern");
    o.dump_after_patterns.push_back(value);
  } else if (VG_STR_CLO(arg, "--dump-every", value)) {
    o.dump_every_seconds =
        ParseNumber(arg, value, 1, 1000000000, "a number of seconds from 1 to 1000000000");
  } else if (VG_BOOL_CLO(arg, "--collect-atstart", o.collect_at_start)) {
  } else if (VG_BOOL_CLO(arg, "--trms", o.track_trms)) {
  } else if (VG_BOOL_CLO(arg, "--input-sources", o.input_sources)) {
  } else if (VG_BOOL_CLO(arg, "--collect-context", o.collect_context)) {
  } else if (VG_BOOL_CLO(arg, "--go-async-preemption", o.go_async_preemption)) {
  } else if (VG_STR_CLO(arg, "--context-depth", value)) {
    o.context_depth = static_cast<u32>(
        ParseNumber(arg, value, 1, 1000000, "a number from 1 to 1000000 (routines)"));
  } else if (VG_STR_CLO(arg, "--overflow-threshold", value)) {
    static_assert(kMaxTimestamp == 2147483647, "the message below names the bound");
    o.overflow_threshold = static_cast<Timestamp>(
        ParseNumber(arg, value, 64, kMaxTimestamp, "a number from 64 to 2147483647"));
  } else {
    return false;
  }
  return true;
}

void PrintUsage() {
  VG_(printf)(
      "    --memory-resolution=1|2|4|8|16  bytes per memory cell; input sizes\n"
      "                                    count cells [4]\n"
      "    --cost-metric=bb|instructions   cost unit: executed basic blocks\n"
      "                                    (superblocks) or guest instructions [bb]\n"
      "    --aprof-out-file=<file>         report file name; %%p is the pid,\n"
      "                                    %%q{VAR} an environment variable\n"
      "                                    [aprof-trms.out.%%p]\n"
      "    --syscall-input=all|io          memory written by which system calls is\n"
      "                                    external input: every system call, or\n"
      "                                    only data transfer (read, recv...) [all]\n"
      "    --skip-routine=<pattern>        routines whose name matches the glob\n"
      "                                    (* and ?) are not profiled; their cost and\n"
      "                                    input count for their caller (repeatable)\n"
      "    --collect-atstart=no|yes        record activations from the start, or\n"
      "                                    only after APROF_TRMS_START_COLLECTION [yes]\n"
      "    --collect-inside=<pattern>      record only activations of routines matching\n"
      "                                    the glob and of what runs below them on the\n"
      "                                    thread's stack (repeatable)\n"
      "    --dump-every=<seconds>          write a numbered dump of the profile so far\n"
      "                                    every n seconds of run time [never]\n"
      "    --dump-before=<pattern>         write a dump when a routine matching the\n"
      "                                    glob is called (repeatable)\n"
      "    --dump-after=<pattern>          write a dump when an activation of a routine\n"
      "                                    matching the glob completes (repeatable)\n"
      "    --trms=no|yes                   no: compute the RMS only, without tracking\n"
      "                                    input from other threads and the kernel;\n"
      "                                    faster, and every TRMS equals the RMS [yes]\n"
      "    --input-sources=no|yes          yes: count each routine's induced reads by\n"
      "                                    source: the thread and routine, or the\n"
      "                                    system call, that wrote the cell [no]\n"
      "    --collect-context=no|yes        yes: also profile each routine per calling\n"
      "                                    context (chain of callers, recursion\n"
      "                                    folded) [no]\n"
      "    --context-depth=<n>             contexts keep at most n routines [64]\n"
      "    --go-async-preemption=no|yes    yes: let Go programs preempt goroutines by\n"
      "                                    a signal; no: as GODEBUG=asyncpreemptoff=1,\n"
      "                                    goroutines yield at calls only [no]\n");
}

void PrintDebugUsage() {
  VG_(printf)(
      "    --overflow-threshold=<n>        renumber timestamps when the counter\n"
      "                                    reaches n (64..2^31-1) [2^31-1]\n");
}

const char* CostMetricName(CostMetric metric) {
  return metric == CostMetric::kBasicBlocks ? "bb" : "instructions";
}

const char* SyscallInputName(SyscallInput input) {
  return input == SyscallInput::kAll ? "all" : "io";
}

}  // namespace aprof
