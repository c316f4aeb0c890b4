// SPDX-License-Identifier: GPL-2.0-or-later
// The naive algorithm of Figure 10 (naive_oracle.h), for the differential
// tests.
#include "naive_oracle.h"

namespace aprof::testing {

std::vector<uint64_t> NaiveOracle::Cells(uint64_t address, uint64_t size) const {
  // Byte by byte, so that it shares no range arithmetic with the engine.
  std::set<uint64_t> cells;
  for (uint64_t b = address; b < address + size; ++b) {
    if (b >= (uint64_t{1} << 47)) continue;
    const uint64_t cell = b >> shift_;
    uint64_t incarnation = 0;  // unmaps that touched a byte of the cell
    for (const auto& [first, last] : unmapped_)
      incarnation += first >> shift_ <= cell && cell <= last >> shift_;
    cells.insert(cell | incarnation << 47);  // cell numbers are below 2^47
  }
  return {cells.begin(), cells.end()};
}

void NaiveOracle::Unmap(uint64_t address, uint64_t size) {
  if (size > 0) unmapped_.push_back({address, address + size - 1});
}

void NaiveOracle::Read(Thread& t, uint64_t cell) {
  Cell& c = cells_[cell];
  const bool induced = c.last_writer != kNobody && c.last_writer != int64_t{t.serial} &&
                       c.accessed_since_write.count(t.serial) == 0;
  for (Activation& a : t.stack) {
    if (!a.accessed.count(cell)) {
      ++a.trms;
      if (induced) ++(c.last_writer == kKernel ? a.induced_by_kernel : a.induced_by_threads);
    } else if (induced) {
      consistent_ = false;  // an induced read must be new to every activation
    }
    if (!a.ever_accessed.count(cell)) ++a.rms;
    a.accessed.insert(cell);
    a.ever_accessed.insert(cell);
  }
  if (induced) {
    const RoutineId consumer = t.stack.empty() ? kNoRoutine : t.stack.back().routine;
    const bool kernel = c.last_writer == kKernel;
    ++sources_[{t.serial, consumer, kernel, kernel ? 0 : static_cast<uint32_t>(c.last_writer),
                c.writer_routine_or_syscall}];
  }
  c.accessed_since_write.insert(t.serial);
}

void NaiveOracle::Write(Thread& t, uint64_t cell) {
  Cell& c = cells_[cell];
  c.last_writer = t.serial;
  c.writer_routine_or_syscall = t.stack.empty() ? kNoRoutine : t.stack.back().routine;
  c.accessed_since_write = {t.serial};
  for (auto& [tid, other] : live_) {
    for (Activation& a : other.stack) {
      if (other.serial == t.serial) {
        a.accessed.insert(cell);
        a.ever_accessed.insert(cell);
      } else {
        a.accessed.erase(cell);
      }
    }
  }
}

void NaiveOracle::KernelWrite(uint64_t cell, uint32_t syscall) {
  Cell& c = cells_[cell];
  c.last_writer = kKernel;
  c.writer_routine_or_syscall = syscall;
  c.accessed_since_write.clear();
  for (auto& [tid, thread] : live_)
    for (Activation& a : thread.stack) a.accessed.erase(cell);
}

void NaiveOracle::Complete(Thread& t) {
  Activation a = std::move(t.stack.back());
  t.stack.pop_back();
  const uint64_t cost = t.cost - a.entry_cost;
  if (!t.stack.empty()) t.stack.back().children_cost += cost;
  completed_.push_back({t.serial, a.routine, a.trms, a.rms, a.induced_by_threads,
                        a.induced_by_kernel, cost, cost - a.children_cost});
}

std::vector<ObservedActivation> NaiveOracle::Run(const Trace& trace) {
  Thread* current = nullptr;
  auto end_thread = [&](uint32_t tid) {
    auto it = live_.find(tid);
    if (it == live_.end()) return;
    while (!it->second.stack.empty()) Complete(it->second);
    if (current == &it->second) current = nullptr;
    live_.erase(it);
  };
  auto start_thread = [&](uint32_t tid) {
    end_thread(tid);
    live_[tid].serial = next_serial_++;
  };

  for (const Event& e : trace) {
    switch (e.kind) {
      case EventKind::kStartThread: start_thread(e.value); break;
      case EventKind::kExitThread: end_thread(e.value); break;
      case EventKind::kSwitch:
        if (!live_.count(e.value)) start_thread(e.value);
        current = &live_[e.value];
        break;
      case EventKind::kCall: {
        Activation a;
        a.routine = e.value;
        a.entry_cost = current->cost;
        current->stack.push_back(std::move(a));
        break;
      }
      case EventKind::kReturn:
        if (!current->stack.empty()) Complete(*current);
        break;
      case EventKind::kCost: current->cost += e.value; break;
      case EventKind::kRead:
      case EventKind::kKernelRead:
        for (uint64_t cell : Cells(e.address, e.size)) Read(*current, cell);
        break;
      case EventKind::kWrite:
        for (uint64_t cell : Cells(e.address, e.size)) Write(*current, cell);
        break;
      case EventKind::kKernelWrite:
        for (uint64_t cell : Cells(e.address, e.size)) KernelWrite(cell, e.value);
        break;
      case EventKind::kUnmap: Unmap(e.address, e.size); break;
    }
  }
  while (!live_.empty()) end_thread(live_.begin()->first);
  return completed_;
}

}  // namespace aprof::testing
