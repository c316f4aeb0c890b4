// SPDX-License-Identifier: GPL-2.0-or-later
// Call and return detection, callgrind-style (see docs/design.md):
// per-thread stacks of (stack pointer, return address) kept in step with the
// engine's pending activations, driven by the superblock entry hook.
//
//  - a call exit pushes the callee; a jump is an (emulated) call when it
//    lands on a function entry or in another object or section (tail calls,
//    PLT stubs), unless it just unwound frames (longjmp, exceptions);
//  - frames whose recorded stack pointer lies below the current one are
//    completed (returns, longjmp, C++ exceptions, missed returns);
//  - PLT stubs and transparent routines (the lazy-binding resolver,
//    --skip-routine) get no frame;
//  - a signal handler runs above a barrier: unwinding never crosses it, so
//    a handler on another stack cannot close the interrupted frames. The
//    barrier goes away at sigreturn or when the handler is left by a jump;
//  - a thread may run on several machine stacks (coroutines): each stack
//    keeps its own frames, and a stack pointer that leaves the running
//    stack switches stacks instead of unwinding (stack_switches.cc).
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_CALL_TRACKER_H
#define APROF_CALL_TRACKER_H

#include "core/engine.h"
#include "core/internal_vector.h"
#include "go_preemption.h"
#include "routine_table.h"
#include "runtime_hooks.h"
#include "superblock_info.h"

namespace aprof {

class CallTracker {
 public:
  CallTracker(Engine& engine, RoutineTable& routines) : engine_(engine), routines_(routines) {}
  ~CallTracker();
  CallTracker(const CallTracker&) = delete;
  CallTracker& operator=(const CallTracker&) = delete;

  void ThreadCreated(ThreadId tid);
  void ThreadExited(ThreadId tid);
  // The thread that runs from now on (Valgrind runs one at a time).
  void SwitchTo(ThreadId tid);
  void SignalDelivered(ThreadId tid);
  void SignalReturned(ThreadId tid);
  // Entry of a block after an exit that may call, return or unwind
  // (g_last_exit), or the first block of a thread or signal handler.
  void OnSuperblockEntry(SuperblockInfo* block, uptr stack_pointer);
  // End of the program: complete every pending activation.
  void ExitAllThreads();
  // In a fork child, only `tid` remains.
  void ResetAfterFork(ThreadId tid);
  // Hands g_pending_cost to the engine's current thread.
  void FlushCost();
  // --dump-before / --dump-after were given: calls and returns of routines
  // ask DumpAtRoutine (run_control.h) from now on.
  void WatchDumpRoutines() { dump_at_routines_ = true; }

  // Moves of a thread from one of its stacks to another (statistics).
  u64 stack_switches() const { return stack_switches_; }
  // Stacks that moved from one thread to another (statistics).
  u64 adopted_stacks() const { return adopted_stacks_; }
  // Goroutine stacks the Go runtime copied elsewhere, whose frames moved
  // with them (statistics).
  u64 copied_stacks() const { return copied_stacks_; }
  // Suspended stacks whose memory a goroutine's stack took over (statistics).
  u64 retired_stacks() const { return retired_stacks_; }
  // Counted with APROF_STATS only (core/platform.h): calls of the entry
  // hook, and frames closed by unwinding (returns, longjmp, exceptions).
  u64 superblock_entries() const { return superblock_entries_; }
  u64 unwound_frames() const { return unwound_frames_; }

  // Whether the tracker and the engine agree (sanity checks): every
  // thread's frames on the stacks of its chain, as many as the engine's
  // pending activations of the thread. The tid of the first thread where
  // they differ, 0 if none (Valgrind's thread ids start at 1).
  ThreadId FindDisagreement() const;

 private:
  // A real return raises the stack pointer above the callee's entry value,
  // so the stack pointer alone tells which frames are done.
  struct Frame {
    uptr stack_pointer;  // at the callee's entry
    RoutineId routine;   // to start a new run when a suspended stack resumes

    // The stack pointer has left the frame: its activation is done.
    bool LeftAt(uptr now) const { return stack_pointer < now; }
  };
  // One machine stack of a thread: the thread's own, or a coroutine's.
  struct CallStack {
    InternalVector<Frame> frames;  // oldest first
    // What the earlier runs of frames[0 .. earlier.size()) measured: those
    // frames were suspended (Engine::Suspend) at least once.
    InternalVector<ActivationResult> earlier;
    // Lowest and highest stack pointer known on this stack (low > high:
    // none yet); brought up to date from the frames when the stack stops
    // running or looks at a stack pointer.
    uptr low = ~uptr{0};
    uptr high = 0;
    // A goroutine's stack: its g (0: not known to be a goroutine's) and
    // the top of the g's stack when it was last resumed here; when a later
    // resumption finds another top, the runtime copied the stack.
    uptr goroutine = 0;
    uptr goroutine_high = 0;

    void TakeSpanOfFrames();
    // The stack pointer lies among this stack's: from its deepest known
    // stack pointer to a little above its highest.
    bool Reaches(uptr stack_pointer) const;
  };
  struct SignalContext {
    size_t barrier;  // frames below belong to the interrupted code
    const ExitInfo* interrupted_exit;
    bool handler_entered;
    bool handler_had_frame;
  };
  struct ThreadCalls {
    explicit ThreadCalls(ThreadId id);
    ~ThreadCalls();
    ThreadCalls(const ThreadCalls&) = delete;
    ThreadCalls& operator=(const ThreadCalls&) = delete;

    // The running stack, chain.back().
    CallStack* stack;
    // Stack pointers in [window_low, window_low + window_last] belong to
    // the running stack without a look (the entry hook's one comparison).
    // Empty at first, so that the first block looks; everything while a
    // signal handler runs (switches are not recognised in handlers).
    uptr window_low = 1;
    uptr window_last = 0;
    // Nonzero: a goroutine was resumed where its top frame's routine
    // called runtime.morestack, at that frame's entry stack pointer; the
    // routine jumps back to its entry there, which starts it over, not
    // anew (StartsOver).
    uptr restart_at = 0;
    InternalVector<SignalContext> signals;
    const ExitInfo* last_exit = &kUnknownOrigin;  // g_last_exit while not running
    ThreadId tid;
    // Every stack the thread ran on, its own first.
    InternalVector<CallStack*> stacks;
    // The stacks whose frames are pending on the engine's stack, in that
    // order: the thread's own first, then each one resumed from the one
    // before it. The others are suspended.
    InternalVector<CallStack*> chain;
  };

  ThreadCalls& CallsOf(ThreadId tid);
  void ForgetThread(ThreadId tid);
  // Pops frames the stack pointer has left; true if any was popped.
  bool Unwind(ThreadCalls& t, uptr stack_pointer, ExitKind how);
  void Push(ThreadCalls& t, SuperblockInfo* block, uptr stack_pointer);
  void Pop(ThreadCalls& t);

  // --- Stack switches (stack_switches.cc) ---
  // The stack pointer left the running stack's window, or a known switch
  // routine ran (Go's gogo): runs on the stack it belongs to (switching if
  // it is another one) and moves the window. at_function_entry: the block
  // entered is a routine's first. goroutine: the goroutine gogo resumed,
  // if known.
  void FollowStackPointer(ThreadCalls& t, uptr stack_pointer, bool at_function_entry,
                          bool known_switch, const GoroutineStack* goroutine = nullptr);
  // The stack of the goroutine gogo resumed, moved to thread t and to where
  // the runtime copied it if it did; null if none is known (or the
  // goroutine is new: at_function_entry).
  CallStack* StackOfGoroutine(ThreadCalls& t, const GoroutineStack& goroutine,
                              bool at_function_entry);
  // Right after gogo resumed a goroutine on its top frame's entry stack
  // pointer (it called runtime.morestack from its prologue): the routine
  // jumps back to its entry next, which is not a new call.
  void AwaitRestart(ThreadCalls& t, uptr stack_pointer);
  // Whether this block entry is that jump (and forgets the restart).
  bool StartsOver(ThreadCalls& t, SuperblockInfo* block, uptr stack_pointer);
  // Resolves the block's routine on first use.
  void ResolveRoutine(SuperblockInfo* block);
  // The stack that stack_pointer belongs to (a new one if none). After a
  // known switch, a stack pointer off the running stack's known ones is not
  // the running stack's, whatever the window.
  CallStack* StackOf(ThreadCalls& t, uptr stack_pointer, bool known_switch);
  // A stack that another thread ran on and left suspended, that
  // stack_pointer lies on: moved, with its frames, to thread t; or null.
  // A goroutine that Go's scheduler resumes on another OS thread goes on
  // in its frames; their activations complete on the thread they ran on
  // and start anew on t (each thread's profile holds the cost it ran).
  CallStack* AdoptSuspendedStack(ThreadCalls& t, uptr stack_pointer);
  // The same for the first such stack that matches(stack).
  template <typename Matches>
  CallStack* AdoptSuspendedStackIf(ThreadCalls& t, Matches matches);
  // A goroutine's stack is [low, high): the frames of suspended stacks
  // there other than `kept` (left by goroutines that ended, on memory the
  // runtime gave this one) are over; they complete in their threads and
  // their stacks serve again.
  void RetireStacksWithin(ThreadCalls& t, const CallStack* kept, uptr low, uptr high);
  bool InSomeChain(const CallStack* stack) const;
  // Completes the suspended activations of a stack in the engine's current
  // thread (the one they ran in), which may have its own pending; then
  // also drops the stack's frames.
  void CompleteSuspendedRuns(CallStack& s);
  void CompleteSuspendedFrames(CallStack& s);
  // Suspends the frames of the running stack, which leaves the chain.
  void SuspendRunningStack(ThreadCalls& t);
  // Starts a new run of the frames of a suspended stack, which runs next.
  void ResumeStack(ThreadCalls& t, CallStack* stack);
  // The window of the running stack, around a stack pointer on it.
  void SetWindow(ThreadCalls& t, uptr stack_pointer);
  // Completes every frame of every stack of the thread (it exits).
  void CompleteAllStacks(ThreadCalls& t);
  // Enables stack switch recognition again, once no signal handler runs.
  static void ReopenWindow(ThreadCalls& t);

  Engine& engine_;
  RoutineTable& routines_;
  InternalVector<ThreadCalls*> threads_;  // indexed by ThreadId
  ThreadCalls* current_ = nullptr;
  u64 stack_switches_ = 0;
  u64 adopted_stacks_ = 0;
  u64 copied_stacks_ = 0;
  u64 retired_stacks_ = 0;
  u64 superblock_entries_ = 0;
  u64 unwound_frames_ = 0;
  bool dump_at_routines_ = false;
};

}  // namespace aprof

#endif  // APROF_CALL_TRACKER_H
