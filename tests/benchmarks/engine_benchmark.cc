// SPDX-License-Identifier: GPL-2.0-or-later
// Microbenchmarks of the TRMS/RMS engine (aprof-trms/core), natively, without
// Valgrind. See docs/performance.md for what each one measures and recorded
// figures.
//
//   BM_RealisticMix   engine events per second on a pre-generated stream
//                     that resembles what the tool feeds the engine.
//   BM_HotRead        upper bound: repeated 4-byte reads of a small array
//   BM_HotWrite       already accessed by the current activation.
//   BM_Renumbering    time of one counter renumbering (Figure 13) as a
//                     function of the live shadow memory.
//
// Run: make bench (from the build directory), or
//   tests/benchmarks/engine_benchmark --benchmark_filter=BM_Renumbering
//
// Copyright (C) 2026, the aprof-trms authors.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "core/engine.h"

namespace {

using aprof::Engine;
using aprof::EngineOptions;

// Cell size in bytes (1, 2, 4, 8, 16) -> EngineOptions::resolution_shift.
unsigned ShiftOfCellBytes(int64_t bytes) {
  unsigned shift = 0;
  while ((int64_t{1} << shift) < bytes) ++shift;
  return shift;
}

// Small deterministic PRNG (SplitMix64): the streams are identical on every
// run and machine.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n).
  uint64_t Below(uint64_t n) { return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64); }
  // Uniform in [lo, hi].
  uint64_t Between(uint64_t lo, uint64_t hi) { return lo + Below(hi - lo + 1); }
  // True with probability per_million / 1e6.
  bool Chance(uint64_t per_million) { return Below(1000000) < per_million; }

 private:
  uint64_t state_;
};

// --- The realistic event stream ------------------------------------------------

enum class Op : uint8_t { kRead, kWrite, kCall, kReturn, kCost, kSwitch, kKernelRead, kKernelWrite };

// 16 bytes: address (or cost amount), size / routine / thread id, operation.
struct Event {
  uint64_t address;
  uint32_t arg;
  Op op;
};

constexpr uint32_t kMixThreads = 4;
constexpr size_t kMixEvents = 1 << 20;
constexpr size_t kMinDepth = 5, kMaxDepth = 40, kInitialDepth = 10;
constexpr uint32_t kRoutines = 2000;

// Address-space layout, as on x86-64 Linux: main heap near 0x5555..., thread
// arenas and stacks near 0x7f..., globals next to the executable.
constexpr uint64_t kGlobalsBase = 0x555555554000ULL + 0x200000;  // .data/.bss
constexpr uint64_t kGlobalsBytes = 4 << 20;
constexpr uint64_t kArenaBase = 0x7f3000000000ULL;  // per-thread malloc arenas
constexpr uint64_t kArenaStride = 1ULL << 30;
constexpr uint64_t kArenaBytes = 16 << 20;
constexpr uint64_t kStackTop = 0x7ffe00000000ULL;  // per-thread stacks, 8 MiB apart
constexpr uint64_t kStackStride = 8 << 20;

// Routine ids skewed towards small ids (a few hot routines, a long tail).
uint32_t PickRoutine(Rng& rng) {
  const double u = static_cast<double>(rng.Below(1 << 20)) / (1 << 20);
  return 1 + static_cast<uint32_t>(u * u * u * (kRoutines - 1));
}

// Access sizes: mostly 4 and 8 bytes, some 1 and 2, a few 16/32-byte vector
// accesses.
uint32_t PickSize(Rng& rng) {
  const uint64_t p = rng.Below(100);
  if (p < 8) return 1;
  if (p < 12) return 2;
  if (p < 52) return 4;
  if (p < 95) return 8;
  if (p < 99) return 16;
  return 32;
}

uint64_t AlignDown(uint64_t address, uint64_t alignment) { return address & ~(alignment - 1); }

// Per-thread state of the stream generator.
struct GenThread {
  uint64_t sp;                     // moves down on calls, up on returns
  std::vector<uint32_t> frames;    // frame sizes of pending activations
  uint64_t arena;                  // this thread's heap arena
  uint64_t recent_heap[16];        // recently used heap addresses
  uint64_t recent_globals[4];      // recently used shared (global) addresses
  unsigned next_heap = 0, next_global = 0;
  uint64_t io_buffer;              // 4 KiB buffer for system calls
};

// Address near recently used ones (within +-256 bytes, or the next element),
// with an occasional far jump anywhere in [base, base + bytes).
uint64_t NearRecent(Rng& rng, uint64_t* recent, unsigned count, unsigned* next,
                    uint64_t base, uint64_t bytes, uint64_t far_per_million) {
  uint64_t address;
  if (rng.Chance(far_per_million)) {
    address = base + rng.Below(bytes);
  } else {
    const uint64_t from = recent[rng.Below(count)];
    const uint64_t p = rng.Below(100);
    address = p < 40 ? from + 8 : from + rng.Below(512) - 256;  // sequential or nearby
    if (address < base || address >= base + bytes - 64) address = base + rng.Below(bytes - 64);
  }
  recent[(*next)++ % count] = address;
  return address;
}

uint64_t PickAddress(Rng& rng, GenThread& t, uint32_t size) {
  const uint64_t p = rng.Below(100);
  uint64_t address;
  if (p < 40) {  // stack: locals of the current frame and its caller
    address = t.sp + rng.Below(384);
  } else if (p < 92) {  // own heap, 1% far jumps
    address = NearRecent(rng, t.recent_heap, 16, &t.next_heap, t.arena, kArenaBytes, 10000);
  } else {  // globals and shared heap, accessed by every thread
    address = NearRecent(rng, t.recent_globals, 4, &t.next_global, kGlobalsBase, kGlobalsBytes, 20000);
  }
  return AlignDown(address, size < 16 ? size : 16);
}

void EmitCall(Rng& rng, GenThread& t, std::vector<Event>& out) {
  const uint32_t frame = static_cast<uint32_t>(AlignDown(rng.Between(32, 512), 16));
  t.frames.push_back(frame);
  t.sp -= frame;
  out.push_back({0, PickRoutine(rng), Op::kCall});
}

void EmitReturn(GenThread& t, std::vector<Event>& out) {
  t.sp += t.frames.back();
  t.frames.pop_back();
  out.push_back({0, 0, Op::kReturn});
}

// The state the stream starts from (and returns to, so that it can be
// replayed any number of times): threads 0..3 started, each kInitialDepth
// calls deep, thread 0 current.
void SetUpMixThreads(Engine& engine) {
  for (uint32_t tid = 0; tid < kMixThreads; ++tid) {
    engine.SwitchTo(tid);
    for (size_t d = 0; d < kInitialDepth; ++d) engine.Call(static_cast<uint32_t>(1000 + d));
  }
  engine.SwitchTo(0);
}

// About 65% reads, 25% writes, 6% cost updates, a call or return every ~25
// events (depth a bounded random walk in [5, 40]), a thread switch every
// 1000-6000 events, and a 4 KiB kernel read or write every ~50000 events.
std::vector<Event> GenerateMix(size_t events, uint64_t seed) {
  Rng rng(seed);
  std::vector<Event> out;
  out.reserve(events + 2 * kMixThreads * kMaxDepth + 8);

  GenThread threads[kMixThreads];
  for (uint32_t i = 0; i < kMixThreads; ++i) {
    GenThread& t = threads[i];
    t.sp = kStackTop - i * kStackStride - 4096;
    t.frames.assign(kInitialDepth, 0);  // frames of SetUpMixThreads: stack unmoved
    t.arena = kArenaBase + i * kArenaStride;
    for (uint64_t& a : t.recent_heap) a = t.arena + rng.Below(kArenaBytes - 64);
    for (uint64_t& a : t.recent_globals) a = kGlobalsBase + rng.Below(kGlobalsBytes - 64);
    t.io_buffer = t.arena + kArenaBytes / 2;
  }

  uint32_t current = 0;
  uint64_t until_switch = rng.Between(1000, 6000);
  while (out.size() < events) {
    GenThread& t = threads[current];
    if (until_switch-- == 0) {
      current = (current + 1 + static_cast<uint32_t>(rng.Below(kMixThreads - 1))) % kMixThreads;
      until_switch = rng.Between(1000, 6000);
      out.push_back({0, current, Op::kSwitch});
      continue;
    }
    if (rng.Chance(20)) {  // read(2): the kernel fills a buffer the thread then reads
      out.push_back({t.io_buffer, 4096, Op::kKernelWrite});
      t.recent_heap[t.next_heap++ % 16] = t.io_buffer;
      continue;
    }
    if (rng.Chance(20)) {  // write(2): the kernel reads a buffer
      out.push_back({t.io_buffer, 4096, Op::kKernelRead});
      continue;
    }
    const uint64_t p = rng.Below(1000);
    if (p < 650) {
      const uint32_t size = PickSize(rng);
      out.push_back({PickAddress(rng, t, size), size, Op::kRead});
    } else if (p < 900) {
      const uint32_t size = PickSize(rng);
      out.push_back({PickAddress(rng, t, size), size, Op::kWrite});
    } else if (p < 960) {
      out.push_back({rng.Between(1, 20), 0, Op::kCost});
    } else {
      const size_t depth = t.frames.size();
      const bool call = depth <= kMinDepth || (depth < kMaxDepth && rng.Below(2) == 0);
      if (call)
        EmitCall(rng, t, out);
      else
        EmitReturn(t, out);
    }
  }

  // Bring every thread back to kInitialDepth and thread 0 back to current.
  for (uint32_t i = 0; i < kMixThreads; ++i) {
    GenThread& t = threads[i];
    out.push_back({0, i, Op::kSwitch});
    while (t.frames.size() > kInitialDepth) EmitReturn(t, out);
    while (t.frames.size() < kInitialDepth) EmitCall(rng, t, out);
  }
  out.push_back({0, 0, Op::kSwitch});
  return out;
}

const std::vector<Event>& MixStream() {
  static const std::vector<Event> stream = GenerateMix(kMixEvents, 20260501);
  return stream;
}

void Replay(Engine& engine, const std::vector<Event>& stream) {
  for (const Event& e : stream) {
    switch (e.op) {
      case Op::kRead: engine.Read(e.address, e.arg); break;
      case Op::kWrite: engine.Write(e.address, e.arg); break;
      case Op::kCall: engine.Call(e.arg); break;
      case Op::kReturn: engine.Return(); break;
      case Op::kCost: engine.AddCost(e.address); break;
      case Op::kSwitch: engine.SwitchTo(e.arg); break;
      case Op::kKernelRead: engine.KernelRead(e.address, e.arg); break;
      case Op::kKernelWrite: engine.KernelWrite(e.address, e.arg); break;
    }
  }
}

// Arg: cell size in bytes (4 = default resolution, 1 = byte resolution).
void BM_RealisticMix(benchmark::State& state) {
  const std::vector<Event>& stream = MixStream();
  EngineOptions options;
  options.resolution_shift = ShiftOfCellBytes(state.range(0));
  Engine engine(options);
  SetUpMixThreads(engine);
  Replay(engine, stream);  // warm-up: allocate and fault in the shadow

  for (auto _ : state) Replay(engine, stream);

  size_t accesses = 0;
  for (const Event& e : stream) accesses += e.op == Op::kRead || e.op == Op::kWrite;
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * stream.size()));
  state.counters["accesses/s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * accesses), benchmark::Counter::kIsRate);
  state.counters["shadow_MiB"] = static_cast<double>(engine.shadow_bytes()) / (1 << 20);
  state.counters["renumberings"] = static_cast<double>(engine.statistics().renumberings);
}
BENCHMARK(BM_RealisticMix)->ArgName("cell_bytes")->Arg(4)->Arg(1)->Unit(benchmark::kMillisecond);

// --- Hot path: upper bound ------------------------------------------------------

constexpr uint64_t kHotArray = 0x7f3000100000ULL;
constexpr int kHotCells = 64;  // 256 bytes, always resident in the cache
constexpr int kHotBatch = 1024;

void BM_HotRead(benchmark::State& state) {
  Engine engine;
  engine.SwitchTo(1);
  for (int d = 0; d < 10; ++d) engine.Call(static_cast<uint32_t>(d + 1));
  for (int i = 0; i < kHotCells; ++i) engine.Read(kHotArray + 4 * i, 4);

  for (auto _ : state)
    for (int i = 0; i < kHotBatch; ++i) engine.Read(kHotArray + 4 * (i % kHotCells), 4);

  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kHotBatch));
}
BENCHMARK(BM_HotRead);

void BM_HotWrite(benchmark::State& state) {
  Engine engine;
  engine.SwitchTo(1);
  for (int d = 0; d < 10; ++d) engine.Call(static_cast<uint32_t>(d + 1));
  for (int i = 0; i < kHotCells; ++i) engine.Write(kHotArray + 4 * i, 4);

  for (auto _ : state)
    for (int i = 0; i < kHotBatch; ++i) engine.Write(kHotArray + 4 * (i % kHotCells), 4);

  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kHotBatch));
}
BENCHMARK(BM_HotWrite);

// --- Renumbering ----------------------------------------------------------------

constexpr uint32_t kRenumberThreads = 4;
constexpr int kRenumberDepth = 20;
constexpr uint64_t kOwnBase = 0x7f3000000000ULL;  // thread t: kOwnBase + t GiB
constexpr uint64_t kSharedBase = 0x555555600000ULL & ~0xffffULL;

// Touches `live_bytes` of address space: a quarter shared by all threads, the
// rest split among 4 threads. Thread by thread and level by level (so that
// timestamps fall in every renumbering bucket), each thread calls one level
// deeper, writes then reads its slice of its own region, reads the same slice
// of the shared region and writes its quarter of it. Ends with every thread
// kRenumberDepth calls deep. With touch == false only the events that advance
// the counter are sent (to learn the counter after setup cheaply).
void SetUpLiveMemory(Engine& engine, uint64_t live_bytes, bool touch) {
  const uint64_t shared_bytes = live_bytes / 4;
  const uint64_t own_bytes = (live_bytes - shared_bytes) / kRenumberThreads;
  constexpr uint64_t kBlock = 64;  // bytes per Read/Write call
  const uint64_t own_slice = own_bytes / kRenumberDepth / kBlock * kBlock;
  const uint64_t shared_slice = shared_bytes / kRenumberDepth / (kRenumberThreads * kBlock) *
                                (kRenumberThreads * kBlock);
  for (int level = 0; level < kRenumberDepth; ++level) {
    for (uint32_t t = 0; t < kRenumberThreads; ++t) {
      engine.SwitchTo(t);
      engine.Call(static_cast<uint32_t>(1 + level));
      if (!touch) continue;
      const uint64_t own = kOwnBase + (uint64_t{t} << 30) + level * own_slice;
      for (uint64_t a = own; a < own + own_slice; a += kBlock) engine.Write(a, kBlock);
      for (uint64_t a = own; a < own + own_slice; a += kBlock) engine.Read(a, kBlock);
      const uint64_t shared = kSharedBase + level * shared_slice;
      for (uint64_t a = shared; a < shared + shared_slice; a += kBlock) engine.Read(a, kBlock);
      const uint64_t quarter = shared_slice / kRenumberThreads;
      const uint64_t mine = shared + t * quarter;
      for (uint64_t a = mine; a < mine + quarter; a += kBlock) engine.Write(a, kBlock);
    }
  }
  // The remainders of the divisions above, so that exactly live_bytes are
  // touched. The switches happen even without touch: same counter.
  const uint64_t own_tail = own_bytes - kRenumberDepth * own_slice;
  const uint64_t shared_tail = shared_bytes - kRenumberDepth * shared_slice;
  for (uint32_t t = 0; t < kRenumberThreads; ++t) {
    engine.SwitchTo(t);
    if (touch && own_tail)
      engine.Write(kOwnBase + (uint64_t{t} << 30) + kRenumberDepth * own_slice, own_tail);
  }
  if (touch && shared_tail)  // by thread 3
    engine.Write(kSharedBase + kRenumberDepth * shared_slice, shared_tail);
}

// Args: MiB of touched address space, cell size in bytes.
//
// After a renumbering the counter restarts at 3 * (pending activations) + 4
// = 244 here. The engine is built with overflow_threshold = the counter
// reached by the setup (< 244; learnt from a probe engine that receives only
// the counter-advancing events), so the setup itself never renumbers and
// every later Tick does: each Call() of the timed loop renumbers exactly
// once (checked), and the matching Return() keeps the depth constant.
void BM_Renumbering(benchmark::State& state) {
  const uint64_t live_bytes = static_cast<uint64_t>(state.range(0)) << 20;
  EngineOptions options;
  options.resolution_shift = ShiftOfCellBytes(state.range(1));

  aprof::Timestamp threshold;
  {
    Engine probe(options);
    SetUpLiveMemory(probe, live_bytes, /*touch=*/false);
    threshold = probe.counter();
  }
  if (threshold >= 3 * kRenumberThreads * kRenumberDepth + 4) {
    state.SkipWithError("setup advances the counter too far to renumber at every call");
    return;
  }
  options.overflow_threshold = threshold;
  Engine engine(options);
  SetUpLiveMemory(engine, live_bytes, /*touch=*/true);
  if (engine.statistics().renumberings != 0) {
    state.SkipWithError("the setup renumbered");
    return;
  }
  // One untimed renumbering: faults in every shadow page it writes.
  engine.Call(9999);
  engine.Return();
  const uint64_t before = engine.statistics().renumberings;

  for (auto _ : state) {
    engine.Call(9999);
    engine.Return();
  }

  const uint64_t renumberings = engine.statistics().renumberings - before;
  if (renumberings != static_cast<uint64_t>(state.iterations())) {
    char message[128];
    snprintf(message, sizeof message, "%llu renumberings in %llu iterations",
             static_cast<unsigned long long>(renumberings),
             static_cast<unsigned long long>(state.iterations()));
    state.SkipWithError(message);
    return;
  }
  const uint64_t shadow = engine.shadow_bytes();
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * shadow));
  state.counters["shadow_MiB"] = static_cast<double>(shadow) / (1 << 20);
  state.counters["live_MiB"] = static_cast<double>(live_bytes) / (1 << 20);
  state.counters["pending"] = static_cast<double>(kRenumberThreads * kRenumberDepth);
}
BENCHMARK(BM_Renumbering)
    ->ArgNames({"live_MiB", "cell_bytes"})
    ->Args({1, 4})
    ->Args({4, 4})
    ->Args({16, 4})
    ->Args({64, 4})
    ->Args({16, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
