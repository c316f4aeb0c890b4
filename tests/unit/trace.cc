// SPDX-License-Identifier: GPL-2.0-or-later
// Event traces for the engine tests (trace.h): running them, random traces,
// printing.
#include "trace.h"

#include <sstream>
#include <tuple>
#include <utility>

namespace aprof::testing {

namespace {

const char* KindName(EventKind kind) {
  switch (kind) {
    case EventKind::kStartThread: return "start";
    case EventKind::kExitThread: return "exit";
    case EventKind::kSwitch: return "switch";
    case EventKind::kCall: return "call";
    case EventKind::kReturn: return "return";
    case EventKind::kCost: return "cost";
    case EventKind::kRead: return "read";
    case EventKind::kWrite: return "write";
    case EventKind::kKernelRead: return "kread";
    case EventKind::kKernelWrite: return "kwrite";
    case EventKind::kUnmap: return "unmap";
  }
  return "?";
}

void Observe(void* context, const ThreadRecord& thread, const ActivationResult& a) {
  static_cast<std::vector<ObservedActivation>*>(context)->push_back(
      {thread.serial, a.routine, a.trms, a.rms, a.induced_by_threads, a.induced_by_kernel,
       a.cost, a.self_cost});
}

}  // namespace

std::string ToString(const Event& e) {
  std::ostringstream out;
  out << KindName(e.kind) << " " << e.value;
  if (e.size) out << " @0x" << std::hex << e.address << std::dec << "+" << e.size;
  return out.str();
}

bool ObservedActivation::operator==(const ObservedActivation& o) const {
  return thread_serial == o.thread_serial && routine == o.routine && trms == o.trms &&
         rms == o.rms && induced_by_threads == o.induced_by_threads &&
         induced_by_kernel == o.induced_by_kernel && cost == o.cost && self_cost == o.self_cost;
}

std::string ToString(const ObservedActivation& a) {
  std::ostringstream out;
  out << "thread " << a.thread_serial << " routine " << a.routine << ": trms " << a.trms
      << " rms " << a.rms << " induced " << a.induced_by_threads << "/" << a.induced_by_kernel
      << " cost " << a.cost << " self " << a.self_cost;
  return out.str();
}

bool SourceCount::operator<(const SourceCount& o) const {
  return std::tie(thread, consumer, kernel, writer_thread, writer_routine_or_syscall) <
         std::tie(o.thread, o.consumer, o.kernel, o.writer_thread, o.writer_routine_or_syscall);
}

void PrintTo(const SourceCount& k, std::ostream* out) {
  *out << "thread " << k.thread << " routine "
       << (k.consumer == kNoRoutine ? int64_t{-1} : int64_t{k.consumer}) << " <- "
       << (k.kernel ? "syscall " : "thread ") << k.writer_thread << "/"
       << k.writer_routine_or_syscall;
}

std::string ToString(const SourceCounts& counts) {
  std::ostringstream out;
  for (const auto& [k, reads] : counts) {
    PrintTo(k, &out);
    out << ": " << reads << "\n";
  }
  return out.str();
}

SourceCounts EngineSources(const Engine& engine) {
  SourceCounts counts;
  for (size_t i = 0; i < engine.thread_record_count(); ++i) {
    const ThreadRecord& thread = engine.thread_record(i);
    thread.profile.sources().ForEach([&](const SourceKey& key, uint64_t reads) {
      const Writer& w = engine.writers()->writer(key.writer);
      counts[{thread.serial, key.consumer, w.kernel, w.thread, w.routine_or_syscall}] += reads;
    });
  }
  return counts;
}

std::vector<ObservedActivation> RunEngine(Engine& engine, const Trace& trace,
                                          const std::function<void(size_t)>& after_event) {
  std::vector<ObservedActivation> seen;
  engine.set_activation_observer(Observe, &seen);
  // Accesses wider than a cell go where the instrumenter sends them.
  const uint64_t cell_bytes = uint64_t{1} << engine.options().resolution_shift;
  for (size_t i = 0; i < trace.size(); ++i) {
    const Event& e = trace[i];
    const bool wide = e.size > cell_bytes;
    switch (e.kind) {
      case EventKind::kStartThread: engine.StartThread(e.value); break;
      case EventKind::kExitThread: engine.ExitThread(e.value); break;
      case EventKind::kSwitch: engine.SwitchTo(e.value); break;
      case EventKind::kCall: engine.Call(e.value); break;
      case EventKind::kReturn: engine.Return(); break;
      case EventKind::kCost: engine.AddCost(e.value); break;
      case EventKind::kRead:
        if (wide)
          engine.ReadWide(e.address, e.size);
        else
          engine.Read(e.address, e.size);
        break;
      case EventKind::kWrite:
        if (engine.options().track_sources)
          wide ? engine.WriteWide<true>(e.address, e.size) : engine.WriteTagged(e.address, e.size);
        else
          wide ? engine.WriteWide<false>(e.address, e.size) : engine.Write(e.address, e.size);
        break;
      case EventKind::kKernelRead: engine.KernelRead(e.address, e.size); break;
      case EventKind::kKernelWrite: engine.KernelWrite(e.address, e.size, e.value); break;
      case EventKind::kUnmap: engine.Unmapped(e.address, e.size); break;
    }
    if (after_event) {
      after_event(i);
      if (::testing::Test::HasFatalFailure()) break;
    }
  }
  engine.ExitAllThreads();
  engine.set_activation_observer(nullptr, nullptr);
  return seen;
}

Trace RandomTrace(std::mt19937_64& rng, const TraceShape& shape) {
  auto chance = [&](int percent) { return static_cast<int>(rng() % 100) < percent; };
  auto pick = [&](uint64_t n) { return rng() % n; };

  // Hot address ranges: ordinary memory, the bytes around a 64 KiB chunk
  // boundary that is also a secondary-table (1 GiB) boundary, and the top of
  // the 47-bit address space (accesses there may run past it).
  const uint64_t bases[] = {0x601000, 0x80000000 - shape.address_span / 2,
                            (uint64_t{1} << 47) - shape.address_span};
  int current = 1;
  // Thread tid's own chunk (shape.own_chunk_percent).
  auto own_chunk = [](uint64_t tid) { return 0x10000000 + (tid << 16); };
  auto random_base = [&]() {
    if (shape.own_chunk_percent == 0) return bases[pick(3)];
    if (chance(shape.own_chunk_percent)) return own_chunk(current);
    return chance(50) ? own_chunk(1 + pick(shape.threads)) : bases[pick(3)];
  };
  auto random_access = [&](EventKind kind) {
    Event e{kind};
    e.address = random_base() + pick(shape.address_span);
    static const uint64_t sizes[] = {1, 2, 4, 4, 4, 8, 8, 16, 32};  // 32: AVX vectors
    e.size = sizes[pick(9)];
    if (kind == EventKind::kKernelWrite || kind == EventKind::kKernelRead) e.size = 1 + pick(24);
    if (kind == EventKind::kKernelWrite) e.value = static_cast<uint32_t>(pick(3));  // system call
    return e;
  };
  // A few bytes of the hot range, or from its page or its chunk on for one
  // or two chunks (freeing whole shadow chunks, zeroing parts of others).
  auto random_unmap = [&]() {
    Event e = random_access(EventKind::kUnmap);
    if (chance(50)) return e;
    e.address &= chance(50) ? ~uint64_t{0xffff} : ~uint64_t{0xfff};
    e.size = uint64_t{0x10000} * (1 + pick(2));
    return e;
  };

  Trace trace;
  std::vector<int> depth(shape.threads + 1, 0);
  std::vector<bool> live(shape.threads + 1, false);
  trace.push_back({EventKind::kStartThread, 1});
  live[1] = true;
  trace.push_back({EventKind::kSwitch, 1});

  for (int n = 0; n < shape.events; ++n) {
    int roll = static_cast<int>(pick(100));
    const bool disturbs = roll < 10 || (roll >= 95 && roll < 99);
    if (disturbs && shape.quiet_percent > 0 && chance(shape.quiet_percent)) roll = 40;  // a read
    if (roll < 8) {  // switch to another live thread, or start one
      uint32_t tid = 1 + pick(shape.threads);
      if (!live[tid]) {
        trace.push_back({EventKind::kStartThread, tid});
        live[tid] = true;
        depth[tid] = 0;
      }
      trace.push_back({EventKind::kSwitch, tid});
      current = tid;
    } else if (roll < 10 && current != 1) {  // the current thread ends
      trace.push_back({EventKind::kExitThread, static_cast<uint32_t>(current)});
      live[current] = false;
      current = 1;
      trace.push_back({EventKind::kSwitch, 1});
    } else if (roll < 22 && depth[current] < shape.max_depth) {
      trace.push_back({EventKind::kCall, static_cast<uint32_t>(pick(shape.routines))});
      ++depth[current];
    } else if (roll < 32 && (depth[current] > 0 || chance(10))) {
      trace.push_back({EventKind::kReturn});  // sometimes unmatched
      if (depth[current] > 0) --depth[current];
    } else if (roll < 40) {
      trace.push_back({EventKind::kCost, static_cast<uint32_t>(1 + pick(5))});
    } else if (roll < 70) {
      trace.push_back(random_access(EventKind::kRead));
    } else if (roll < 90) {
      trace.push_back(random_access(EventKind::kWrite));
    } else if (roll < 95) {
      trace.push_back(random_access(EventKind::kKernelRead));
    } else if (roll < 99) {
      trace.push_back(random_access(EventKind::kKernelWrite));
    } else {
      trace.push_back(random_unmap());
    }
  }
  return trace;
}

SeededTrace TraceForSeed(uint64_t seed, int min_events, int event_spread) {
  std::mt19937_64 rng(seed);
  TraceShape shape;
  shape.events = min_events + static_cast<int>(rng() % static_cast<uint64_t>(event_spread));
  Trace trace = RandomTrace(rng, shape);
  const auto shift = static_cast<unsigned>(rng() % 5);
  return {seed, std::move(trace), shift};
}

}  // namespace aprof::testing
