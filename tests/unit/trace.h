// SPDX-License-Identifier: GPL-2.0-or-later
// Event traces for the engine tests: a trace is what the Valgrind glue would
// feed the engine. The same trace runs through the engine and through the
// naive oracle, and their activations are compared.
#ifndef APROF_TESTS_UNIT_TRACE_H
#define APROF_TESTS_UNIT_TRACE_H

#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/engine.h"

namespace aprof::testing {

enum class EventKind {
  kStartThread,
  kExitThread,
  kSwitch,
  kCall,
  kReturn,
  kCost,
  kRead,
  kWrite,
  kKernelRead,
  kKernelWrite,
  kUnmap,
};

struct Event {
  EventKind kind;
  uint32_t value = 0;  // thread id, routine id, cost or system call, by kind
  uint64_t address = 0;
  uint64_t size = 0;
};

using Trace = std::vector<Event>;

// Shorthands for hand-written traces. Accesses default to one 4-byte cell.
inline Event StartThread(uint32_t tid) { return {EventKind::kStartThread, tid}; }
inline Event ExitThread(uint32_t tid) { return {EventKind::kExitThread, tid}; }
inline Event SwitchTo(uint32_t tid) { return {EventKind::kSwitch, tid}; }
inline Event Call(RoutineId routine) { return {EventKind::kCall, routine}; }
inline Event Return() { return {EventKind::kReturn}; }
inline Event Cost(uint32_t amount) { return {EventKind::kCost, amount}; }
inline Event Read(uint64_t address, uint64_t size = 4) { return {EventKind::kRead, 0, address, size}; }
inline Event Write(uint64_t address, uint64_t size = 4) { return {EventKind::kWrite, 0, address, size}; }
inline Event KernelRead(uint64_t address, uint64_t size = 4) {
  return {EventKind::kKernelRead, 0, address, size};
}
inline Event KernelWrite(uint64_t address, uint64_t size = 4, uint32_t syscall = 0) {
  return {EventKind::kKernelWrite, syscall, address, size};
}
// The program unmaps [address, address + size): memory mapped there later is
// new memory.
inline Event Unmap(uint64_t address, uint64_t size) { return {EventKind::kUnmap, 0, address, size}; }

std::string ToString(const Event& e);

// One completed activation, as observed from the engine or the oracle.
struct ObservedActivation {
  uint32_t thread_serial;
  RoutineId routine;
  uint64_t trms, rms, induced_by_threads, induced_by_kernel, cost, self_cost;
  bool operator==(const ObservedActivation& o) const;
};
std::string ToString(const ObservedActivation& a);

// Induced reads of one consumer (thread serial, routine or kNoRoutine) from
// one writer (input_sources.h), as counted by the engine or the oracle.
struct SourceCount {
  uint32_t thread;
  RoutineId consumer;
  bool kernel;
  uint32_t writer_thread;
  uint32_t writer_routine_or_syscall;
  bool operator<(const SourceCount& o) const;
  bool operator==(const SourceCount& o) const { return !(*this < o) && !(o < *this); }
};
using SourceCounts = std::map<SourceCount, uint64_t>;
std::string ToString(const SourceCounts& counts);
void PrintTo(const SourceCount& count, std::ostream* out);  // for gtest messages

// The engine's source counts of every thread record (track_sources).
SourceCounts EngineSources(const Engine& engine);

// Applies a trace to an engine (ending with ExitAllThreads) and returns the
// completed activations in completion order. Writes go through
// WriteTagged() when the engine tracks sources. after_event(i), if given,
// runs after the trace's event i (a fatal failure in it stops the run).
std::vector<ObservedActivation> RunEngine(
    Engine& engine, const Trace& trace,
    const std::function<void(size_t)>& after_event = std::function<void(size_t)>());

struct TraceShape {
  int threads = 4;            // host thread ids 1..threads
  int events = 400;
  int routines = 6;
  int max_depth = 6;          // per thread
  uint64_t address_span = 64; // bytes of the hot address range
  // The share (percent) of would-be thread switches, exits and kernel
  // writes that become reads instead: longer runs of one thread.
  int quiet_percent = 0;
  // The share (percent) of accesses, kernel writes and unmaps that go to the
  // current thread's own 64 KiB chunk (one per host thread id), where
  // the others reach only now and then: chunks private to one thread
  // that become shared late, or whose owner exits first.
  int own_chunk_percent = 0;
};

// A random trace: nested calls and returns, reads and writes (1 to 16
// bytes, often unaligned) over a few hot addresses, kernel reads and
// writes, unmaps of parts or whole 64 KiB chunks of memory, thread switches,
// thread exits and restarts of the same host id. Hot ranges include a chunk
// boundary and the top of the address space (and, with own_chunk_percent,
// a chunk per thread).
Trace RandomTrace(std::mt19937_64& rng, const TraceShape& shape);

// A random trace (default shape) of min_events to min_events +
// event_spread - 1 events and a resolution shift of 0 to 4, both drawn from
// std::mt19937_64(seed): reproducible from the seed alone, which is what a
// failure message needs to say.
struct SeededTrace {
  uint64_t seed;
  Trace trace;
  unsigned resolution_shift;
};
SeededTrace TraceForSeed(uint64_t seed, int min_events, int event_spread);

// check(const SeededTrace&) on the traces of seeds first_seed to
// first_seed + count - 1, in order. An ASSERT_ in `check` returns from
// `check` only: the loop stops at the first fatal failure instead, as the
// test's own loop would.
template <typename Check>
void ForEachRandomTrace(uint64_t first_seed, int count, int min_events, int event_spread,
                        Check check) {
  for (int i = 0; i < count; ++i) {
    check(TraceForSeed(first_seed + i, min_events, event_spread));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace aprof::testing

#endif  // APROF_TESTS_UNIT_TRACE_H
