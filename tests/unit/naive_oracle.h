// SPDX-License-Identifier: GPL-2.0-or-later
// The naive algorithm of Figure 10, extended with RMS and with the split of
// induced first accesses by source. Slow and literal on purpose: it keeps,
// for every pending activation, the set of cells it (or its descendants)
// accessed, and removes a cell from the sets of every other thread's
// activations when a cell is written. It is the reference the engine is
// checked against.
#ifndef APROF_TESTS_UNIT_NAIVE_ORACLE_H
#define APROF_TESTS_UNIT_NAIVE_ORACLE_H

#include <cstdint>
#include <map>
#include <utility>
#include <set>
#include <vector>

#include "trace.h"

namespace aprof::testing {

class NaiveOracle {
 public:
  explicit NaiveOracle(unsigned resolution_shift) : shift_(resolution_shift) {}

  // Runs the whole trace (ending all threads) and returns the completed
  // activations in completion order.
  std::vector<ObservedActivation> Run(const Trace& trace);

  // Induced reads by consumer and writer, after Run() (what the engine
  // counts with track_sources).
  const SourceCounts& sources() const { return sources_; }

  // False if the oracle saw a state its own definitions rule out.
  bool consistent() const { return consistent_; }

 private:
  struct Activation {
    RoutineId routine;
    std::set<uint64_t> accessed;       // L: shrinks when others write
    std::set<uint64_t> ever_accessed;  // for RMS: never shrinks
    uint64_t trms = 0, rms = 0, induced_by_threads = 0, induced_by_kernel = 0;
    uint64_t entry_cost = 0, children_cost = 0;
  };
  struct Thread {
    uint32_t serial;
    uint64_t cost = 0;
    std::vector<Activation> stack;
  };
  // Who wrote a cell last, and which threads accessed it since.
  static constexpr int64_t kNobody = -1, kKernel = -2;
  struct Cell {
    int64_t last_writer = kNobody;  // a thread serial, kNobody or kKernel
    uint32_t writer_routine_or_syscall = 0;  // of the last writer
    std::set<uint32_t> accessed_since_write;
  };

  // The cells an access overlaps, each as its current incarnation: a cell
  // unmapped and mapped again is a new cell, as if at another address.
  std::vector<uint64_t> Cells(uint64_t address, uint64_t size) const;
  void Unmap(uint64_t address, uint64_t size);
  void Read(Thread& t, uint64_t cell);
  void Write(Thread& t, uint64_t cell);
  void KernelWrite(uint64_t cell, uint32_t syscall);
  void Complete(Thread& t);

  const unsigned shift_;
  uint32_t next_serial_ = 1;
  std::map<uint32_t, Thread> live_;  // by host thread id
  std::map<uint64_t, Cell> cells_;             // by incarnation
  std::vector<std::pair<uint64_t, uint64_t>> unmapped_;  // [first, last] byte of each unmap
  std::vector<ObservedActivation> completed_;
  SourceCounts sources_;
  bool consistent_ = true;
};

}  // namespace aprof::testing

#endif  // APROF_TESTS_UNIT_NAIVE_ORACLE_H
