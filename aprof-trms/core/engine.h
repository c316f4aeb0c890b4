// SPDX-License-Identifier: GPL-2.0-or-later
// The TRMS/RMS engine: turns a stream of calls, returns, memory accesses,
// kernel accesses and thread switches into per-thread, per-routine profiles
// keyed by input size. It implements the read/write timestamping algorithm
// of Figures 11-13 of "Multithreaded Input-Sensitive Profiling" (see
// docs/design.md): a global shadow memory holds the latest write of every
// cell (of memory a second thread or the kernel reached: private_chunks.h),
// a per-thread shadow memory the thread's latest access, and a
// per-thread shadow stack the partial input sizes of pending activations.
//
// Events other than thread management apply to the current thread (the one
// of the latest SwitchTo). The engine is single-threaded: its host
// serialises events, as Valgrind serialises guest threads.
#ifndef APROF_CORE_ENGINE_H
#define APROF_CORE_ENGINE_H

#include "context_tree.h"
#include "input_sources.h"
#include "internal_vector.h"
#include "private_chunks.h"
#include "profile_table.h"
#include "shadow_memory.h"
#include "shadow_stack.h"
#include "types.h"

namespace aprof {

// The top bit of a global (latest-write) timestamp says who wrote the cell:
// set for the kernel on behalf of a system call, clear for a thread. The
// remaining 31 bits are the time.
constexpr Timestamp kKernelWriteBit = Timestamp{1} << 31;
constexpr Timestamp kTimeMask = kKernelWriteBit - 1;
constexpr Timestamp kMaxTimestamp = kTimeMask;

struct EngineOptions {
  // Cells are 2^resolution_shift bytes: 0..4 for 1, 2, 4, 8, 16 bytes.
  unsigned resolution_shift = 2;
  // The counter is renumbered (Figure 13) when it reaches this value. Tests
  // set it very low; it must leave room for 3 * (pending activations) + 4.
  Timestamp overflow_threshold = kMaxTimestamp;
  // False computes RMS only: no global shadow memory, no induced reads, so
  // every TRMS equals the RMS (to measure what TRMS costs over RMS).
  bool track_induced = true;
  // Also records who wrote every cell, and counts each consumer routine's
  // induced reads by writer (needs track_induced). Writes must then come
  // through WriteTagged().
  bool track_sources = false;
  // Greater than 0: also keeps calling contexts at most this deep, and
  // records activations per context (context_tree.h).
  u32 context_depth = 0;
};

// Everything recorded about one thread, kept after the thread exits (its
// host id may then be reused by a new thread, which gets a new record).
struct ThreadRecord {
  u32 serial;     // 1, 2, 3... in order of thread start
  ThreadId tid;   // host id at the time
  u64 cost;       // the thread's cost clock
  bool live;
  ThreadProfile profile;
};

// Called for every completed activation (tests and debugging).
using ActivationObserver = void (*)(void* context, const ThreadRecord& thread,
                                    const ActivationResult& activation);

struct EngineStatistics {
  u64 renumberings;
  u64 unmatched_returns;        // returns with no pending activation
  u64 untracked_access_bytes;   // bytes beyond the 47-bit address space
  // Private chunks of the global shadow (docs/design.md, "Private chunks"):
  u64 chunks_made_private;      // chunks a thread claimed alone
  u64 private_chunks_shared;    // private chunks with writes that became shared:
                                // write times rebuilt from the owner's slots
  u64 orphans_shared;           // the same, whose owner had exited
  // Counted with APROF_STATS only (platform.h):
  // Where the reads of cells end (an access over k cells reads k):
  u64 cell_reads;       // every read of a cell
  u64 full_reads;       // those that went on to the full procedure (ReadCell)
  u64 unchanged_reads;  // full reads that changed no size: the top activation
                        // had accessed the cell, and no other writer had since
  u64 owner_searches;   // full reads that are first reads by an activation of
                        // a cell its thread accessed before: the owner search
  u64 fence_reads;      // reads that ended at the fence with a slot below the
                        // counter: the test before the fence (slot equal to
                        // the counter) would have sent them to ReadCell
  u64 exited_thread_cache_misses;  // chunk-cache misses of exited threads' shadows
};

class Engine {
 public:
  explicit Engine(const EngineOptions& options = EngineOptions());
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // --- Threads -----------------------------------------------------------
  // A new thread with clean state. Starting a tid that is still live first
  // ends the old thread.
  void StartThread(ThreadId tid);
  // Completes the thread's pending activations and frees its shadow state.
  void ExitThread(ThreadId tid);
  // Makes tid the current thread (starting it if unknown); a real switch
  // advances the global counter.
  void SwitchTo(ThreadId tid);
  // Completes every pending activation of every thread (end of program).
  void ExitAllThreads();
  // In the child of a fork(): only `survivor` goes on, and the profile
  // starts empty (the parent reports what happened before the fork).
  // Pending activations of the survivor stay pending; other threads vanish.
  void ResetAfterFork(ThreadId survivor);

  // While false, completed activations are not recorded in the profile;
  // input sizes are still computed exactly (client requests that stop and
  // start collection).
  void set_recording(bool recording) { recording_ = recording; }
  bool recording() const { return recording_; }

  // --collect-inside: from now on an activation is recorded only if an
  // activation of a routine marked by MarkCollectInside is pending on its
  // thread's stack when it completes, or it is one itself (a marked
  // routine and everything it calls). Input sizes stay exact. Routines are
  // marked as they are met; none marked yet: nothing is recorded.
  void CollectOnlyInside() { scoped_ = true; }
  void MarkCollectInside(RoutineId routine);

  // Forgets what every thread recorded so far (ThreadProfile::ClearRecorded):
  // shadow memories, shadow stacks and cost clocks are kept, so activations
  // pending now are recorded whole when they complete, with exact sizes.
  void ZeroProfiles();

  // --- Events of the current thread ----------------------------------------
  void Call(RoutineId routine);
  // Call() of the first frame of a coroutine's stack: its context is a
  // root, and no activation below it folds it (context_tree.h).
  void CallFirstOnStack(RoutineId routine);
  void Return();
  void AddCost(u64 amount) { current_->record->cost += amount; }
  // Accesses within one cell (most of them) take the inline path, which
  // stays lean enough to need almost no stack frame in the access hooks; a
  // read whose slot is at or above the fence (fence_) ends at its first
  // load and compare, without a store. Accesses over several cells go out
  // of line to the *Wide() paths below.
  void Read(uptr address, uptr size) {
    APROF_DCHECK(current_ != nullptr);  // accesses come from a running thread
    uptr cell;
    if (!WithinOneCell(address, size, &cell)) return ReadCells(address, size);
    APROF_COUNT_EVENT(stats_.cell_reads);
    Timestamp* own = current_->memory.Slot(cell);
    if (*own < fence_) return ReadCell(*current_, cell, own);
    CountFenceRead(*own);
  }
  void Write(uptr address, uptr size) { WriteCell<false>(address, size); }
  // Write() when sources are tracked: also records the writer of the cells.
  // A separate entry point, so that Write() stays the same without them.
  void WriteTagged(uptr address, uptr size) { WriteCell<true>(address, size); }
  // Read() and Write() for accesses wider than a cell, which always span
  // several cells: the access hooks call these directly for such sizes
  // (the instrumenter knows the size), skipping the one-cell test. Exact
  // for any access. Within one shadow chunk (all but the rare access that
  // straddles a 64 KiB boundary) the cells' slots are found with one chunk
  // lookup, and a read whose cells' slots are all at or above the fence
  // ends after checking them, in a loop without calls.
  void ReadWide(uptr address, uptr size) {
    uptr first, count;
    if (!WithinOneChunk(address, size, &first, &count)) return ReadAcrossChunks(address, size);
    APROF_COUNT_EVENTS(stats_.cell_reads, count);
    Timestamp* own = current_->memory.Slot(first);
    for (uptr i = 0; i < count; ++i) {
      if (own[i] < fence_) return ReadRun(first + i, own + i, count - i);
      CountFenceRead(own[i]);
    }
  }
  template <bool kTagged>
  void WriteWide(uptr address, uptr size) {
    uptr first, count;
    if (!WithinOneChunk(address, size, &first, &count))
      return WriteAcrossChunks<kTagged>(address, size);
    ForEachWrittenShadow<kTagged>(first, first + count - 1, [first, count](ShadowMemory& shadow,
                                                                       Timestamp value) {
      FillRun(shadow.Slot(first), count, value);
    });
  }
  // The kernel reads user memory for a system call (e.g. write()): a read by
  // the calling thread, as if the system call were a subroutine.
  void KernelRead(uptr address, uptr size) { Read(address, size); }
  // The kernel fills user memory (e.g. read()) for system call `syscall`:
  // new external input for every thread, counted only when a thread reads it.
  void KernelWrite(uptr address, uptr size, u32 syscall = kUnknownSyscall);
  // Memory [address, address + size) holds what the current thread's
  // pending activations accessed before, and other code of the thread
  // touched it while they were suspended (Go's runtime copying a
  // goroutine's stack, its collector scanning it): its cells count as
  // accessed by the top activation when it started, so that the pending
  // activations' later reads there are not input again. Latest writes
  // stay as they are.
  void TakeAsAccessedByTop(uptr address, uptr size);
  // The program unmapped [address, address + size): memory mapped there
  // later is new memory, never accessed or written by any thread, so every
  // shadow memory forgets the cells (and gives whole chunks back).
  void Unmapped(uptr address, uptr size);

  // --- Coroutines: routines of one thread on several machine stacks -------
  // An activation whose stack the thread switched away from runs in pieces
  // ("runs"); it is pending on the stack only while it runs, so the stack
  // keeps increasing timestamps (docs/design.md, "Activations that run in
  // pieces").
  //
  // The top activation stops running without completing. Toward its parent
  // the run counts as a completed child (its partial sizes and cost fold
  // into the parent, as at a return); what the run measured is returned, to
  // be summed with AddRun. A later run starts with Resume(earlier runs).
  ActivationResult Suspend();
  // Starts a later run of a suspended activation, whose earlier runs
  // measured `earlier`: Call() that keeps the context of its first run.
  // first_on_stack: it is the first frame of its stack (as for
  // CallFirstOnStack, activations above it fold only into its stack's).
  void Resume(const ActivationResult& earlier, bool first_on_stack = false);
  // Completes the top activation, whose earlier runs measured `earlier`.
  void Return(const ActivationResult& earlier);
  // Records an activation that was suspended and will not run again (its
  // thread exits, the program ends); `runs` sums what its runs measured,
  // `caller` is the routine of the frame below it on its stack (kNoCaller
  // for the stack's first frame).
  void CompleteSuspended(const ActivationResult& runs, RoutineId caller);
  // The same for an activation whose suspended stack moves to another
  // thread, while this thread may have activations of its own pending:
  // `outermost` says whether no activation of the same routine lies below
  // it on its stack.
  void CompleteSuspendedApart(const ActivationResult& runs, RoutineId caller, bool outermost);

  // --- Introspection -------------------------------------------------------
  const EngineOptions& options() const { return options_; }
  size_t thread_record_count() const { return records_.size(); }
  const ThreadRecord& thread_record(size_t i) const { return *records_[i]; }
  bool has_current_thread() const { return current_ != nullptr; }
  size_t current_depth() const { return current_->stack.depth(); }
  Timestamp counter() const { return count_; }
  const EngineStatistics& statistics() const { return stats_; }
  // Chunk-cache misses (APROF_STATS) of the thread shadows, live or gone,
  // and of the global shadow.
  u64 thread_cache_misses() const;
  u64 global_cache_misses() const { return global_writes_.cache_misses(); }
  // Pending activations of a thread (0 if it is not live).
  size_t depth_of(ThreadId tid) const {
    return tid < live_.size() && live_[tid] ? live_[tid]->stack.depth() : 0;
  }

  // --- Sanity checks (--sanity-level; tests) --------------------------------
  // The first broken invariant, nothing if none. The cheap check is O(1):
  // the counter within the time bits, the current thread's top activation
  // not above it. The full one checks every live thread's shadow stack
  // (ShadowStack::FindInconsistency) and every shadow memory's chunk cache,
  // and with walk_shadow every slot of the thread and global shadows: no
  // access or write time above the counter (what renumbering must keep).
  Inconsistency FindCheapInconsistency() const;
  Inconsistency FindInconsistency(bool walk_shadow);
  // Shadow tables and chunks in use now, and at most so far (bytes).
  u64 shadow_bytes() const { return shadow_allocator_.in_use_bytes(); }
  u64 shadow_peak_bytes() const { return shadow_allocator_.peak_bytes(); }
  // Bytes of the private chunks' bitmaps and table (statistics).
  u64 private_chunk_bytes() const { return private_chunks_.bytes(); }
  // Where the shadow goes: bytes by kind, pool counts (statistics).
  const ShadowAllocator& shadow_allocator() const { return shadow_allocator_; }
  // The writers that ThreadProfile::sources() tags refer to (null unless
  // sources are tracked).
  const WriterTable* writers() const { return writers_; }
  // The calling-context tree (null unless contexts are kept).
  const ContextTree* contexts() const { return contexts_; }

  void set_activation_observer(ActivationObserver observer, void* context) {
    observer_ = observer;
    observer_context_ = context;
  }

 private:
  struct LiveThread {
    explicit LiveThread(ShadowAllocator& allocator) : memory(allocator, ShadowKind::kThread) {}
    ShadowMemory memory;  // ts_t: latest access by this thread
    ShadowStack stack;
    ContextPath contexts;  // in step with stack when contexts are kept
    ThreadRecord* record;
    // Sources: the writer tag of (this thread, writer_routine), 0 if not
    // looked up yet; consecutive writes mostly come from the same routine.
    WriterTag writer = 0;
    RoutineId writer_routine;
    // Activations of MarkCollectInside routines pending on the stack.
    u64 inside = 0;
  };

  // Advances the global counter, renumbering first if it reached the
  // threshold. Every caller then raises the fence to the new value.
  void Tick() {
    if (APROF_UNLIKELY(count_ >= options_.overflow_threshold)) Renumber();
    ++count_;
  }
  void Renumber();  // renumbering.cc

  bool WithinOneCell(uptr address, uptr size, uptr* cell) const {
    *cell = address >> options_.resolution_shift;
    return APROF_LIKELY(*cell == (address + size - 1) >> options_.resolution_shift &&
                        address < ShadowMemory::kAddressLimit && size != 0);
  }
  // Whether [address, address + size) is tracked (non-empty, below the
  // address limit) and lies in one shadow chunk; if so, its cells are
  // [*first, *first + *count).
  bool WithinOneChunk(uptr address, uptr size, uptr* first, uptr* count) const {
    const uptr limit = ShadowMemory::kAddressLimit;
    // size - 1 wraps for size 0, which takes the slow path and is dropped there.
    if (APROF_UNLIKELY(address >= limit || size - 1 >= limit - address)) return false;
    const uptr end = address + (size - 1);
    *first = address >> options_.resolution_shift;
    *count = (end >> options_.resolution_shift) - *first + 1;
    return APROF_LIKELY(address >> ShadowMemory::kChunkAddressBits ==
                        end >> ShadowMemory::kChunkAddressBits);
  }
  // --- The read fence (docs/design.md, "The read fence") ---
  // After a tick that lets the current thread see writes it did not make
  // (it was switched in, the kernel wrote, the counter was renumbered):
  // nothing older than the counter can be trusted.
  void RaiseHorizon() { horizon_ = fence_ = count_; }
  // After the current thread's top activation was popped: its parent's
  // start, or the horizon if later.
  void LowerFenceToTop() {
    const Timestamp top = current_->stack.top().ts;
    fence_ = top > horizon_ ? top : horizon_;
  }
  // Statistics builds only: a read that ended at the fence, given its slot.
  void CountFenceRead(Timestamp slot) {
    if constexpr (kCountEvents) stats_.fence_reads += slot != count_;
  }
  // own: the thread's slot for the cell, which holds a time below the fence.
  void ReadCell(LiveThread& thread, uptr cell, Timestamp* own);
  // Read()/Write() of an access over several cells: the *Wide() paths, out
  // of line so that the one-cell path stays lean.
  void ReadCells(uptr address, uptr size);
  template <bool kTagged>
  void WriteCells(uptr address, uptr size);
  // The read of cells [cell, cell + count), whose slots are own[0..count),
  // from its first cell whose slot is below the fence on.
  APROF_NOINLINE void ReadRun(uptr cell, Timestamp* own, uptr count);
  // The slow paths of the *Wide() accesses: any range (across chunks, past
  // the address limit, empty).
  APROF_NOINLINE void ReadAcrossChunks(uptr address, uptr size);
  template <bool kTagged>
  APROF_NOINLINE void WriteAcrossChunks(uptr address, uptr size);
  // Write()/WriteTagged(): an access within one cell sets that cell's
  // slots inline; a wider one goes out of line.
  template <bool kTagged>
  void WriteCell(uptr address, uptr size) {
    uptr cell;
    if (!WithinOneCell(address, size, &cell)) return WriteCells<kTagged>(address, size);
    ForEachWrittenShadow<kTagged>(
        cell, cell, [cell](ShadowMemory& shadow, Timestamp value) { *shadow.Slot(cell) = value; });
  }
  // The one decision of every write path, whatever its width: a write by
  // the current thread sets its own shadow, the global one when induced
  // reads are tracked (always, when sources are: the constructor checks),
  // and the writer tags when sources are tracked. `fill(shadow, value)`
  // stores `value` in the written cells' slots of `shadow`, cells
  // [first, last]. The thread's own shadow first: its new chunks are
  // claimed (ClaimChunk) before the global shadow is looked at, whose
  // cache holds shared chunks only; the others are written out of line.
  template <bool kTagged, typename FillSlots>
  void ForEachWrittenShadow(uptr first, uptr last, FillSlots fill) {
    fill(current_->memory, count_);
    if (kTagged || options_.track_induced) {
      const uptr chunk_index = global_writes_.ChunkIndexOf(first);
      PrivateChunks::Chunk* own_chunk;
      if (APROF_UNLIKELY(chunk_index != global_writes_.ChunkIndexOf(last)))
        WriteGlobalUncached(first, last);
      else if (APROF_LIKELY(global_writes_.IsCached(first)))
        fill(global_writes_, count_);
      else if ((own_chunk = private_chunks_.Cached(chunk_index)) != nullptr)
        // The writer's own (its chunk was claimed first), set inline.
        PrivateChunks::MarkWritten(*own_chunk, first & (global_writes_.cells_per_chunk() - 1),
                                   last - first + 1);
      else
        WriteGlobalUncached(first, last);
    }
    if constexpr (kTagged) fill(*writer_tags_, CurrentWriter());
  }
  // --- Private chunks (private_chunks.h; docs/design.md, "Private chunks") ---
  // The global shadow's part of a write to cells [first, last] whose chunk
  // is not in its cache: the owner's bits of a private chunk, the write
  // times of a shared one.
  APROF_NOINLINE void WriteGlobalUncached(uptr first, uptr last);
  // The new-chunk hook of the thread shadows (the current thread's got one).
  static void OnNewThreadChunk(void* engine, uptr chunk_index);
  // The current thread accesses chunk_index for the first time: it becomes
  // private to it if nobody else has accessed or written it, shared if it
  // was private to another thread.
  void ClaimChunk(uptr chunk_index);
  // A private chunk becomes shared: the global shadow gets its write times.
  void MakeShared(uptr chunk_index, PrivateChunks::Chunk& chunk);
  // Every private chunk among the chunks of cells [first, last] becomes shared.
  void MakeSharedInRange(uptr first, uptr last);
  // The thread leaves: its private chunks become orphans.
  void OrphanChunksOf(const LiveThread* thread);
  // Cells [first, last] are forgotten: they are no longer written.
  void ForgetPrivateWrites(uptr first, uptr last);
  // The first broken invariant of the private chunks, null if none (sanity
  // checks; engine_sanity.cc).
  const char* PrivateChunkInconsistency();
  static void FillRun(Timestamp* slots, uptr count, Timestamp value) {
    for (uptr i = 0; i < count; ++i) slots[i] = value;
  }
  // --- Input sources (input_sources.h) ---
  // The pending routine that makes the current thread's accesses.
  RoutineId TopRoutine(LiveThread& thread) {
    return thread.stack.depth() ? thread.stack.top().routine : kNoRoutine;
  }
  WriterTag CurrentWriter() {
    LiveThread& thread = *current_;
    const RoutineId routine = TopRoutine(thread);
    if (APROF_UNLIKELY(thread.writer == 0 || thread.writer_routine != routine))
      return LookUpWriter(thread, routine);
    return thread.writer;
  }
  WriterTag LookUpWriter(LiveThread& thread, RoutineId routine);
  // Out of line: keeps ReadCell's frame as small as without sources.
  APROF_NOINLINE void CountSource(LiveThread& thread, uptr cell);
  // Sets the slots of cells [first, last] to value.
  static void Fill(ShadowMemory& memory, uptr first, uptr last, Timestamp value);
  // Call() and Resume() but for the context.
  void StartActivation(RoutineId routine) {
    Tick();
    fence_ = count_;  // the new top activation's start
    current_->stack.Push(routine, count_, current_->record->cost);
    if (APROF_UNLIKELY(scoped_) && IsInsideRoutine(routine)) ++current_->inside;
    current_->record->profile.RecordCall(routine);
  }
  // Pops the top activation (every pop, whether it completes or not).
  ActivationResult PopActivation(LiveThread& thread);
  // earlier: what the activation's earlier runs measured, if it was suspended.
  void CompleteTopActivation(LiveThread& thread, const ActivationResult* earlier = nullptr);
  // record_it: whether the activation enters the profile (Collecting).
  void Record(ThreadRecord& record, const ActivationResult& result, RoutineId caller,
              bool record_it);
  bool IsInsideRoutine(RoutineId routine) const {
    return routine < inside_routines_.size() && inside_routines_[routine];
  }
  // Whether an activation of `routine` that completes now in `thread`
  // (already popped) is recorded: recording is on and, with
  // --collect-inside, it or a pending activation below it is of a marked
  // routine.
  bool Collecting(const LiveThread& thread, RoutineId routine) const {
    return recording_ && (APROF_LIKELY(!scoped_) || thread.inside > 0 || IsInsideRoutine(routine));
  }
  // Cells [first, last] covered by an access; false if none is tracked.
  bool CellRange(uptr address, uptr size, uptr* first, uptr* last);
  LiveThread* LiveThreadOf(ThreadId tid) {
    return tid < live_.size() ? live_[tid] : nullptr;
  }

  const EngineOptions options_;
  Timestamp count_ = kThreadRootTimestamp;
  // The current thread's read fence: the later of its top activation's
  // start and horizon_. A read whose slot is at or above it would change
  // nothing in ReadCell, and leaving the slot as it is changes no later
  // answer (docs/design.md, "The read fence").
  Timestamp fence_ = kThreadRootTimestamp;
  // The counter's value at the latest event after which the current thread
  // may see a write it did not make: its switch-in, a kernel write, a
  // renumbering.
  Timestamp horizon_ = kThreadRootTimestamp;
  ShadowAllocator shadow_allocator_;  // of all shadow memories below: declared first
  ShadowMemory global_writes_;       // wts: latest write by anyone
  // Chunks of wts that hold no write times: one live thread alone accessed
  // them (only with induced reads tracked).
  PrivateChunks private_chunks_;
  // Sources only: WriterTag of the latest write of every cell.
  ShadowMemory* writer_tags_ = nullptr;
  WriterTable* writers_ = nullptr;
  ContextTree* contexts_ = nullptr;  // only with options_.context_depth > 0
  InternalVector<LiveThread*> live_;  // indexed by ThreadId
  InternalVector<ThreadRecord*> records_;
  LiveThread* current_ = nullptr;
  EngineStatistics stats_{};
  bool recording_ = true;
  // --collect-inside: the marked routines, by id; scoped_ after CollectOnlyInside.
  InternalVector<bool> inside_routines_;
  bool scoped_ = false;
  ActivationObserver observer_ = nullptr;
  void* observer_context_ = nullptr;
};

}  // namespace aprof

#endif  // APROF_CORE_ENGINE_H
