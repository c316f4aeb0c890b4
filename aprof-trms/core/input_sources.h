// SPDX-License-Identifier: GPL-2.0-or-later
// Where induced input came from (--input-sources=yes): who made the latest
// write of every cell, and per consumer routine how many of its induced
// reads each writer caused (docs/design.md, "Input sources").
//
// A writer is a thread (its serial, never its reusable host id, and the
// routine on top of its stack) or the kernel on behalf of a system call.
// Writers are few (threads x routines that write, plus system calls), so a
// cell's writer is a small tag: an index into the WriterTable, kept in a
// shadow memory of its own that exists only when sources are tracked.
#ifndef APROF_CORE_INPUT_SOURCES_H
#define APROF_CORE_INPUT_SOURCES_H

#include "hash_map.h"
#include "internal_vector.h"
#include "types.h"

namespace aprof {

// Stands for "no routine pending" (the thread root) where a routine is
// expected: a consumer or producer outside every profiled routine.
constexpr RoutineId kNoRoutine = ~RoutineId{0};
// A kernel write whose system call the host did not say.
constexpr u32 kUnknownSyscall = ~u32{0};

// Index + 1 of a writer in the WriterTable; 0 means "never written".
using WriterTag = u32;

struct Writer {
  bool kernel;
  // kernel: 0. Otherwise the thread serial; 0 for a thread of the parent
  // process, in the child of a fork().
  u32 thread;
  // kernel: the system call number; otherwise the routine (or kNoRoutine).
  u32 routine_or_syscall;
};

struct WriterTraits {
  static u64 Hash(const Writer& w) {
    return MixHash((u64{w.thread} << 33) ^ (u64{w.kernel} << 32) ^ w.routine_or_syscall);
  }
  static bool Equal(const Writer& a, const Writer& b) {
    return a.kernel == b.kernel && a.thread == b.thread &&
           a.routine_or_syscall == b.routine_or_syscall;
  }
};

class WriterTable {
 public:
  // The tag of a writer, adding it on first use.
  WriterTag TagOf(const Writer& writer);
  const Writer& writer(WriterTag tag) const { return writers_[tag - 1]; }
  size_t size() const { return writers_.size(); }

  // In the child of a fork() the survivor becomes thread 1 and the other
  // threads are gone: their writes stay attributed, to thread 0 ("a thread
  // of the parent"). Tags keep their meaning; two tags may now name the
  // same writer, so users of the counts add up equal writers.
  void RenumberThreadsAfterFork(u32 survivor_serial);

 private:
  InternalVector<Writer> writers_;
  HashMap<Writer, WriterTag, WriterTraits> tags_;
};

// Induced reads of one consumer routine (kNoRoutine: outside every routine)
// caused by one writer, in one thread.
struct SourceKey {
  RoutineId consumer;
  WriterTag writer;
};

struct SourceKeyTraits {
  static u64 Hash(const SourceKey& k) { return MixHash((u64{k.writer} << 32) | k.consumer); }
  static bool Equal(const SourceKey& a, const SourceKey& b) {
    return a.consumer == b.consumer && a.writer == b.writer;
  }
};

using SourceCounts = HashMap<SourceKey, u64, SourceKeyTraits>;

}  // namespace aprof

#endif  // APROF_CORE_INPUT_SOURCES_H
