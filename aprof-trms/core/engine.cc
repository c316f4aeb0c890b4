// SPDX-License-Identifier: GPL-2.0-or-later
// The engine's events (engine.h): threads, calls and returns, reads, writes,
// kernel accesses and unmaps.
#include "engine.h"

#include "platform.h"

namespace aprof {

Engine::Engine(const EngineOptions& options)
    : options_(options),
      shadow_allocator_(options.resolution_shift),
      global_writes_(shadow_allocator_, ShadowKind::kGlobalWrites),
      private_chunks_(global_writes_.cells_per_chunk()) {
  APROF_CHECK_LE(options.resolution_shift, 4u);
  APROF_CHECK(options.overflow_threshold > kThreadRootTimestamp &&
              options.overflow_threshold <= kMaxTimestamp);
  APROF_CHECK(!options.track_sources || options.track_induced);
  if (options.track_sources) {
    writer_tags_ = New<ShadowMemory>(shadow_allocator_, ShadowKind::kWriterTags);
    writers_ = New<WriterTable>();
  }
  if (options.context_depth > 0) contexts_ = New<ContextTree>(options.context_depth);
}

Engine::~Engine() {
  for (LiveThread* thread : live_) Delete(thread);
  for (ThreadRecord* record : records_) Delete(record);
  Delete(writer_tags_);
  Delete(writers_);
  Delete(contexts_);
}

// --- Threads -----------------------------------------------------------------

void Engine::StartThread(ThreadId tid) {
  if (LiveThreadOf(tid)) ExitThread(tid);
  if (tid >= live_.size()) live_.resize(tid + 1);

  ThreadRecord* record = New<ThreadRecord>();
  record->serial = static_cast<u32>(records_.size()) + 1;
  record->tid = tid;
  record->live = true;
  records_.push_back(record);

  LiveThread* thread = New<LiveThread>(shadow_allocator_);
  thread->record = record;
  if (options_.track_induced) thread->memory.set_new_chunk_hook(&Engine::OnNewThreadChunk, this);
  live_[tid] = thread;
}

void Engine::ExitThread(ThreadId tid) {
  LiveThread* thread = LiveThreadOf(tid);
  if (!thread) return;
  while (thread->stack.depth() > 0) CompleteTopActivation(*thread);
  thread->record->live = false;
  stats_.exited_thread_cache_misses += thread->memory.cache_misses();
  OrphanChunksOf(thread);
  if (current_ == thread) current_ = nullptr;
  live_[tid] = nullptr;
  Delete(thread);
}

u64 Engine::thread_cache_misses() const {
  u64 misses = stats_.exited_thread_cache_misses;
  for (const LiveThread* thread : live_)
    if (thread) misses += thread->memory.cache_misses();
  return misses;
}

void Engine::ExitAllThreads() {
  for (ThreadId tid = 0; tid < live_.size(); ++tid) ExitThread(tid);
}

void Engine::ResetAfterFork(ThreadId survivor) {
  for (ThreadId tid = 0; tid < live_.size(); ++tid) {
    if (tid == survivor || !live_[tid]) continue;
    OrphanChunksOf(live_[tid]);
    Delete(live_[tid]);
    live_[tid] = nullptr;
  }
  LiveThread* kept = LiveThreadOf(survivor);
  ThreadRecord* fresh = nullptr;
  if (writers_) writers_->RenumberThreadsAfterFork(kept ? kept->record->serial : 0);
  if (kept) {
    // Same thread, same cost clock and pending activations, empty profile.
    fresh = New<ThreadRecord>();
    fresh->serial = 1;
    fresh->tid = survivor;
    fresh->cost = kept->record->cost;
    fresh->live = true;
    for (size_t i = 1; i <= kept->stack.depth(); ++i)
      fresh->profile.RecordCall(kept->stack.at(i).routine);
    kept->record = fresh;
  }
  for (ThreadRecord* record : records_) Delete(record);
  records_.clear();
  if (fresh) records_.push_back(fresh);
  current_ = kept;
  RaiseHorizon();  // conservative: the fence at the counter is always sound
}

void Engine::SwitchTo(ThreadId tid) {
  LiveThread* thread = LiveThreadOf(tid);
  if (thread && thread == current_) return;
  if (!thread) {
    StartThread(tid);
    thread = live_[tid];
  }
  Tick();
  current_ = thread;
  RaiseHorizon();  // other threads ran: their writes are visible now
}

// --- Calls and returns ---------------------------------------------------------

void Engine::Call(RoutineId routine) {
  StartActivation(routine);
  if (APROF_UNLIKELY(contexts_ != nullptr)) current_->contexts.Enter(*contexts_, routine);
}

void Engine::CallFirstOnStack(RoutineId routine) {
  StartActivation(routine);
  if (contexts_) current_->contexts.Enter(*contexts_, routine, /*first_on_stack=*/true);
}

void Engine::Return() {
  LiveThread& thread = *current_;
  if (APROF_UNLIKELY(thread.stack.depth() == 0)) {
    ++stats_.unmatched_returns;
    return;
  }
  CompleteTopActivation(thread);
  LowerFenceToTop();
}

// PopActivation, CompleteTopActivation and Record are inlined into Return():
// one function per return instead of a chain of four calls.
APROF_ALWAYS_INLINE ActivationResult Engine::PopActivation(LiveThread& thread) {
  ActivationResult result = thread.stack.Pop(thread.record->cost);
  result.context =
      APROF_UNLIKELY(contexts_ != nullptr) ? thread.contexts.Leave(result.routine) : kNoContext;
  if (APROF_UNLIKELY(scoped_) && IsInsideRoutine(result.routine)) --thread.inside;
  return result;
}

APROF_ALWAYS_INLINE void Engine::CompleteTopActivation(
    LiveThread& thread, const ActivationResult* earlier) {
  ActivationResult result = PopActivation(thread);
  if (earlier) AddRun(result, *earlier);
  // The parent is the activation it ran on top of: for a signal handler the
  // interrupted routine, for a resumed coroutine frame the resumer.
  const RoutineId caller = thread.stack.depth() > 0 ? thread.stack.top().routine : kNoCaller;
  Record(*thread.record, result, caller, Collecting(thread, result.routine));
}

APROF_ALWAYS_INLINE void Engine::Record(ThreadRecord& record, const ActivationResult& result,
                                        RoutineId caller, bool record_it) {
  record.profile.RecordActivation(result, record_it, caller);
  if (APROF_UNLIKELY(contexts_ != nullptr) && record_it)
    record.profile.RecordContextActivation(result);
  if (record_it && observer_) observer_(observer_context_, record, result);
}

// --- Collection scope ------------------------------------------------------------

void Engine::MarkCollectInside(RoutineId routine) {
  if (routine >= inside_routines_.size()) inside_routines_.resize(routine + 1);
  inside_routines_[routine] = true;
}

void Engine::ZeroProfiles() {
  for (ThreadRecord* record : records_) record->profile.ClearRecorded();
}

// --- Coroutines ------------------------------------------------------------------

ActivationResult Engine::Suspend() {
  APROF_CHECK_GT(current_->stack.depth(), 0u);
  const ActivationResult run = PopActivation(*current_);
  LowerFenceToTop();
  // No longer pending on the stack (a later run calls it again), not recorded.
  current_->record->profile.RecordActivation(run, /*record=*/false);
  return run;
}

void Engine::Resume(const ActivationResult& earlier, bool first_on_stack) {
  StartActivation(earlier.routine);
  if (contexts_) current_->contexts.Resume(earlier.routine, earlier.context, first_on_stack);
}

void Engine::Return(const ActivationResult& earlier) {
  APROF_CHECK(current_->stack.depth() > 0 && current_->stack.top().routine == earlier.routine);
  CompleteTopActivation(*current_, &earlier);
  LowerFenceToTop();
}

void Engine::CompleteSuspended(const ActivationResult& runs, RoutineId caller) {
  current_->record->profile.RecordCall(runs.routine);
  Record(*current_->record, runs, caller, Collecting(*current_, runs.routine));
}

void Engine::CompleteSuspendedApart(const ActivationResult& runs, RoutineId caller, bool outermost) {
  if (!Collecting(*current_, runs.routine)) return;
  ThreadRecord& record = *current_->record;
  record.profile.AddActivation(runs, outermost, caller);
  if (APROF_UNLIKELY(contexts_ != nullptr)) record.profile.RecordContextActivation(runs);
  if (observer_) observer_(observer_context_, record, runs);
}

// --- Memory accesses -----------------------------------------------------------

bool Engine::CellRange(uptr address, uptr size, uptr* first, uptr* last) {
  if (size == 0) return false;
  const uptr limit = ShadowMemory::kAddressLimit;
  uptr end = address + (size - 1);
  if (end < address) end = ~uptr{0};  // wrapped around the top of memory
  if (end >= limit) {
    stats_.untracked_access_bytes += end - (address > limit ? address : limit) + 1;
    if (address >= limit) return false;
    end = limit - 1;
  }
  *first = address >> options_.resolution_shift;
  *last = end >> options_.resolution_shift;
  return true;
}

void Engine::ReadCells(uptr address, uptr size) { ReadWide(address, size); }

void Engine::ReadRun(uptr cell, Timestamp* own, uptr count) {
  for (uptr i = 0; i < count; ++i) {
    if (own[i] < fence_)
      ReadCell(*current_, cell + i, own + i);
    else
      CountFenceRead(own[i]);
  }
}

void Engine::ReadAcrossChunks(uptr address, uptr size) {
  uptr first, last;
  if (!CellRange(address, size, &first, &last)) return;
  current_->memory.ForEachRun(first, last, [this](uptr cell, Timestamp* own, uptr count) {
    APROF_COUNT_EVENTS(stats_.cell_reads, count);
    ReadRun(cell, own, count);
  });
}

// Figure 11, procedure read, for TRMS and RMS together. A read whose slot
// is at or above the fence changes nothing here (docs/design.md, "The read
// fence"), so callers handle it without coming here.
void Engine::ReadCell(LiveThread& thread, uptr cell, Timestamp* own) {
  APROF_COUNT_EVENT(stats_.full_reads);
  const Timestamp last_access = *own;  // 0: never accessed by this thread
  *own = count_;

  const Timestamp latest_write = options_.track_induced ? global_writes_.Get(cell) : 0;
  // Written by another thread or the kernel since this thread last touched
  // the cell: new input for every pending activation of the thread.
  const bool induced = last_access < (latest_write & kTimeMask);
  Frame& top = thread.stack.top();
  if (induced) {
    ++top.trms;
    if (latest_write & kKernelWriteBit)
      ++top.induced_by_kernel;
    else
      ++top.induced_by_threads;
    if (writer_tags_) CountSource(thread, cell);
  }
  if (last_access >= top.ts) {  // already accessed by this activation
    if (!induced) APROF_COUNT_EVENT(stats_.unchanged_reads);
    return;
  }

  // First access by the top activation. The activation that last accessed
  // the cell (and its ancestors) had counted it already: move that count
  // up to the top, keeping invariant 2.
  Frame* previous_owner = nullptr;
  if (last_access) {
    APROF_COUNT_EVENT(stats_.owner_searches);
    previous_owner = &thread.stack.LatestStartedAtOrBefore(last_access);
  }
  ++top.rms;
  if (previous_owner) --previous_owner->rms;
  if (!induced) {
    ++top.trms;
    if (previous_owner) --previous_owner->trms;
  }
}

void Engine::Fill(ShadowMemory& memory, uptr first, uptr last, Timestamp value) {
  memory.ForEachRun(first, last,
                    [value](uptr, Timestamp* slots, uptr count) { FillRun(slots, count, value); });
}

template <bool kTagged>
void Engine::WriteCells(uptr address, uptr size) {
  WriteWide<kTagged>(address, size);
}
template void Engine::WriteCells<false>(uptr address, uptr size);
template void Engine::WriteCells<true>(uptr address, uptr size);

template <bool kTagged>
void Engine::WriteAcrossChunks(uptr address, uptr size) {
  uptr first, last;
  if (!CellRange(address, size, &first, &last)) return;
  ForEachWrittenShadow<kTagged>(first, last, [first, last](ShadowMemory& shadow, Timestamp value) {
    Fill(shadow, first, last, value);
  });
}
template void Engine::WriteAcrossChunks<false>(uptr address, uptr size);
template void Engine::WriteAcrossChunks<true>(uptr address, uptr size);

// Figure 12: one counter step for the whole buffer (no thread access can
// happen in between, so one step per cell would change no comparison).
void Engine::KernelWrite(uptr address, uptr size, u32 syscall) {
  uptr first, last;
  if (!options_.track_induced || !CellRange(address, size, &first, &last)) return;
  Tick();
  RaiseHorizon();  // the current thread may read the new data next
  MakeSharedInRange(first, last);
  Fill(global_writes_, first, last, count_ | kKernelWriteBit);
  if (writer_tags_) Fill(*writer_tags_, first, last, writers_->TagOf({true, 0, syscall}));
}

// --- Input sources ---------------------------------------------------------------

WriterTag Engine::LookUpWriter(LiveThread& thread, RoutineId routine) {
  thread.writer = writers_->TagOf({false, thread.record->serial, routine});
  thread.writer_routine = routine;
  return thread.writer;
}

// An induced read: its cell was written since, so it has a writer tag.
void Engine::CountSource(LiveThread& thread, uptr cell) {
  if (!Collecting(thread, TopRoutine(thread))) return;
  const WriterTag writer = writer_tags_->Get(cell);
  APROF_CHECK_NE(writer, 0u);
  thread.record->profile.CountInducedRead(TopRoutine(thread), writer);
}

// --- Unmapped memory -------------------------------------------------------------

// Memory unmapped and mapped again is new memory (the kernel gives fresh
// pages or a file's contents): a later read by an activation that read the
// old memory counts again, as a read of another address would. Forgetting is
// also what lets the shadow shrink when a program returns memory.
void Engine::TakeAsAccessedByTop(uptr address, uptr size) {
  uptr first, last;
  if (!CellRange(address, size, &first, &last)) return;
  // Slots set below the thread's writes would make its reads induced,
  // which a private chunk cannot say: the write times go to wts first.
  MakeSharedInRange(first, last);
  Fill(current_->memory, first, last, current_->stack.top().ts);
}

void Engine::Unmapped(uptr address, uptr size) {
  const uptr limit = ShadowMemory::kAddressLimit;
  if (size == 0 || address >= limit) return;
  const uptr end = size > limit - address ? limit - 1 : address + (size - 1);
  const uptr first = address >> options_.resolution_shift, last = end >> options_.resolution_shift;
  global_writes_.Forget(first, last);
  ForgetPrivateWrites(first, last);
  if (writer_tags_) writer_tags_->Forget(first, last);
  for (LiveThread* thread : live_)
    if (thread) thread->memory.Forget(first, last);
}

// --- Private chunks ----------------------------------------------------------------

void Engine::WriteGlobalUncached(uptr first, uptr last) {
  const uptr cells_per_chunk = global_writes_.cells_per_chunk();
  for (uptr cell = first, count; cell <= last; cell += count) {
    const uptr in_chunk = cell & (cells_per_chunk - 1);
    count = last - cell + 1 < cells_per_chunk - in_chunk ? last - cell + 1 : cells_per_chunk - in_chunk;
    PrivateChunks::Chunk* chunk = private_chunks_.Find(global_writes_.ChunkIndexOf(cell));
    if (chunk) {
      // The writer's own chunk was claimed first: a private chunk is its own.
      APROF_DCHECK(chunk->owner == current_);
      PrivateChunks::MarkWritten(*chunk, in_chunk, count);
    } else {
      FillRun(global_writes_.Slot(cell), count, count_);
    }
  }
}

void Engine::OnNewThreadChunk(void* engine, uptr chunk_index) {
  static_cast<Engine*>(engine)->ClaimChunk(chunk_index);
}

// A read of a cell is induced only when a thread other than the reader, or
// the kernel, wrote it after the reader's latest access. Reads and writes
// of the owner of a private chunk cannot be; any other thread's first
// access there makes the chunk shared (a read of a cell the owner wrote is
// induced), and so does any kernel write (KernelWrite).
void Engine::ClaimChunk(uptr chunk_index) {
  if (PrivateChunks::Chunk* chunk = private_chunks_.Find(chunk_index)) {
    // The owner's own chunk comes back after an unmap gave it away.
    if (chunk->owner != current_) MakeShared(chunk_index, *chunk);
    return;
  }
  // Written before (by a thread while shared, by an exited owner, by the
  // kernel): shared for good.
  if (global_writes_.HasChunk(chunk_index)) return;
  // Accessed by another live thread (read only, or its writes are in wts).
  for (const LiveThread* thread : live_)
    if (thread && thread != current_ && thread->memory.HasChunk(chunk_index)) return;
  private_chunks_.Create(chunk_index, current_);
  ++stats_.chunks_made_private;
}

// The write time of a cell the owner wrote: the owner's slot, its latest
// access, at or after its latest write, and no other live thread has a
// slot there to compare it with. An orphan's owner is gone, and so are its
// slots: the counter now is below no live thread's slot there (none has
// one) and above 0, which is all any comparison can ask of it.
void Engine::MakeShared(uptr chunk_index, PrivateChunks::Chunk& chunk) {
  if (!private_chunks_.NoneWritten(chunk)) {
    Timestamp* writes = global_writes_.ChunkAt(chunk_index);
    if (chunk.owner) {
      LiveThread* owner = const_cast<LiveThread*>(static_cast<const LiveThread*>(chunk.owner));
      const Timestamp* accesses = owner->memory.FindChunk(chunk_index);
      APROF_CHECK(accesses != nullptr);
      private_chunks_.ForEachWritten(chunk, [&](uptr i) { writes[i] = accesses[i]; });
      ++stats_.private_chunks_shared;
    } else {
      private_chunks_.ForEachWritten(chunk, [&](uptr i) { writes[i] = count_; });
      ++stats_.orphans_shared;
    }
  }
  private_chunks_.Remove(chunk_index);
}

void Engine::MakeSharedInRange(uptr first, uptr last) {
  const uptr first_chunk = global_writes_.ChunkIndexOf(first);
  const uptr last_chunk = global_writes_.ChunkIndexOf(last);
  if (last_chunk - first_chunk >= private_chunks_.ever_private()) {
    InternalVector<uptr> covered;
    private_chunks_.ForEach([&](uptr chunk_index, PrivateChunks::Chunk&) {
      if (chunk_index >= first_chunk && chunk_index <= last_chunk) covered.push_back(chunk_index);
    });
    for (uptr chunk_index : covered) MakeShared(chunk_index, *private_chunks_.Find(chunk_index));
    return;
  }
  for (uptr chunk_index = first_chunk; chunk_index <= last_chunk; ++chunk_index)
    if (PrivateChunks::Chunk* chunk = private_chunks_.Find(chunk_index))
      MakeShared(chunk_index, *chunk);
}

void Engine::OrphanChunksOf(const LiveThread* thread) {
  private_chunks_.ForEach([thread](uptr, PrivateChunks::Chunk& chunk) {
    if (chunk.owner == thread) chunk.owner = nullptr;
  });
}

// A chunk unmapped whole is private to nobody (every shadow gave its chunk
// back; the next thread to access it claims it again): its bitmap goes.
void Engine::ForgetPrivateWrites(uptr first, uptr last) {
  const uptr cells_per_chunk = global_writes_.cells_per_chunk();
  InternalVector<uptr> covered_whole;
  auto forget_in = [&](uptr chunk_index, PrivateChunks::Chunk& chunk) {
    const uptr chunk_first = chunk_index * cells_per_chunk;
    const uptr chunk_last = chunk_first + cells_per_chunk - 1;
    const uptr from = first > chunk_first ? first : chunk_first;
    const uptr to = last < chunk_last ? last : chunk_last;
    if (from == chunk_first && to == chunk_last)
      covered_whole.push_back(chunk_index);
    else if (from <= to)
      PrivateChunks::ClearWritten(chunk, from - chunk_first, to - from + 1);
  };
  const uptr first_chunk = global_writes_.ChunkIndexOf(first);
  const uptr last_chunk = global_writes_.ChunkIndexOf(last);
  if (last_chunk - first_chunk >= private_chunks_.ever_private()) {
    private_chunks_.ForEach(forget_in);
  } else {
    for (uptr chunk_index = first_chunk; chunk_index <= last_chunk; ++chunk_index)
      if (PrivateChunks::Chunk* chunk = private_chunks_.Find(chunk_index)) forget_in(chunk_index, *chunk);
  }
  for (uptr chunk_index : covered_whole) private_chunks_.Remove(chunk_index);
}

}  // namespace aprof
