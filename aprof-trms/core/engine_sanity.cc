// SPDX-License-Identifier: GPL-2.0-or-later
// The engine's consistency checks, run by Valgrind's sanity checking
// (--sanity-level) and by the tests: each names the first invariant that
// does not hold, so that a failure on a real program says what broke.
#include "engine.h"
#include "platform.h"

namespace aprof {

Inconsistency Engine::FindCheapInconsistency() const {
  Inconsistency found;
  // Not against the overflow threshold: with many activations pending,
  // renumbering may restart the counter above a tiny test threshold.
  if (count_ < kThreadRootTimestamp || count_ > kMaxTimestamp)
    found.what = "the counter is out of its bounds";
  else if (current_ && current_->stack.top().ts > count_)
    found.what = "the top activation started after the counter";
  else if (current_ && (fence_ < current_->stack.top().ts || fence_ < horizon_ || fence_ > count_))
    found.what = "the read fence is below the top activation's start or the horizon, or above the counter";
  if (found && current_) {
    found.thread = current_->record->serial;
    found.frame = current_->stack.depth();
  }
  return found;
}

Inconsistency Engine::FindInconsistency(bool walk_shadow) {
  Inconsistency found = FindCheapInconsistency();
  if (found) return found;
  const auto fail = [&found](const char* what, const LiveThread* thread) {
    found.what = what;
    found.thread = thread ? thread->record->serial : 0;
    return found;
  };
  for (LiveThread* thread : live_) {
    if (!thread) continue;
    found = thread->stack.FindInconsistency(count_, thread->record->cost);
    if (found) {
      found.thread = thread->record->serial;
      return found;
    }
    if (!thread->memory.CacheAgreesWithTables())
      return fail("a thread's chunk cache disagrees with its tables", thread);
  }
  if (!global_writes_.CacheAgreesWithTables())
    return fail("the global chunk cache disagrees with its tables", nullptr);
  if (writer_tags_ && !writer_tags_->CacheAgreesWithTables())
    return fail("the writer tags' chunk cache disagrees with their tables", nullptr);
  if (const char* what = PrivateChunkInconsistency()) return fail(what, nullptr);
  if (!walk_shadow) return found;

  for (LiveThread* thread : live_) {
    if (thread && !thread->memory.AllSlotsAtMost(~Timestamp{0}, count_))
      return fail("a thread accessed a cell after the counter", thread);
  }
  if (!global_writes_.AllSlotsAtMost(kTimeMask, count_))
    return fail("a cell was written after the counter", nullptr);
  return found;
}

// What makes a private chunk's bitmap enough (docs/design.md, "Private
// chunks"): no write times in wts, no other live thread with a chunk there,
// and every cell the owner wrote still accessed by it.
const char* Engine::PrivateChunkInconsistency() {
  const char* what = nullptr;
  private_chunks_.ForEach([&](uptr chunk_index, PrivateChunks::Chunk& chunk) {
    if (what) return;
    if (global_writes_.HasChunk(chunk_index)) what = "a private chunk has write times";
    for (const LiveThread* thread : live_) {
      if (thread && thread != chunk.owner && thread->memory.HasChunk(chunk_index))
        what = "another thread accessed a private chunk";
    }
    if (what || !chunk.owner) return;
    LiveThread* owner = const_cast<LiveThread*>(static_cast<const LiveThread*>(chunk.owner));
    const Timestamp* accesses = owner->memory.FindChunk(chunk_index);
    private_chunks_.ForEachWritten(chunk, [&](uptr i) {
      if (!accesses || accesses[i] == 0) what = "a private chunk's owner forgot a cell it wrote";
    });
  });
  return what;
}

}  // namespace aprof
