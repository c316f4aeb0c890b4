// SPDX-License-Identifier: GPL-2.0-or-later
// Activations that run in pieces (coroutines, Engine::Suspend): on random
// traces, an engine that suspends and resumes activations must measure each
// of them as the sum of its runs measured by a plain engine in which every
// suspension is a return and every resumption a call, and every other
// activation exactly as the plain engine does (which the differential test
// checks against the naive algorithm).
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

#include "core/engine.h"

namespace aprof::testing {
namespace {

void Collect(void* context, const ThreadRecord&, const ActivationResult& a) {
  static_cast<std::vector<ActivationResult>*>(context)->push_back(a);
}

// A logical activation of the coroutine thread.
struct Logical {
  int id;
  RoutineId routine;
  ActivationResult earlier;  // the suspending engine's earlier runs
  bool suspended_before;
};

// The coroutine thread's stacks: the chain (resident on both engines' stacks,
// each element one machine stack's frames) and the suspended stacks.
using Stack = std::vector<Logical>;

class CoroutinePair {
 public:
  explicit CoroutinePair(unsigned shift) : suspending_(Options(shift)), plain_(Options(shift)) {
    suspending_.set_activation_observer(Collect, &suspending_done_);
    plain_.set_activation_observer(Collect, &plain_done_);
    for (Engine* e : {&suspending_, &plain_}) {
      e->StartThread(1);
      e->StartThread(2);
      e->SwitchTo(1);
    }
    chain_.emplace_back();
  }

  void Run(std::mt19937_64& rng, int events) {
    auto pick = [&](uint64_t n) { return rng() % n; };
    for (int n = 0; n < events; ++n) {
      const int roll = static_cast<int>(pick(100));
      if (roll < 14 && Depth() < 12) {
        Call(static_cast<RoutineId>(1 + pick(5)));
      } else if (roll < 24) {
        Return();
      } else if (roll < 28 && chain_.size() > 1) {
        Suspend();
      } else if (roll < 32 && !suspended_.empty()) {
        Resume(pick(suspended_.size()));
      } else if (roll < 35) {
        chain_.emplace_back();  // a new coroutine stack starts running
      } else if (roll < 40) {
        const u64 amount = 1 + pick(5);
        Both([&](Engine& e) { e.AddCost(amount); });
      } else if (roll < 70) {
        const uint64_t a = 0x1000 + pick(48);
        Both([&](Engine& e) { e.Read(a, 4); });
      } else if (roll < 85) {
        const uint64_t a = 0x1000 + pick(48);
        Both([&](Engine& e) { e.Write(a, 4); });
      } else if (roll < 92) {
        const uint64_t a = 0x1000 + pick(48);  // another thread writes
        Both([&](Engine& e) {
          e.SwitchTo(2);
          e.Write(a, 4);
          e.SwitchTo(1);
        });
      } else {
        const uint64_t a = 0x1000 + pick(48);
        Both([&](Engine& e) { e.KernelWrite(a, 8); });
      }
    }
    Finish();
  }

  // Checks every logical activation against the sum of its plain runs.
  void Check(uint64_t seed) const {
    ASSERT_EQ(suspending_done_.size(), suspending_ids_.size()) << "seed " << seed;
    ASSERT_EQ(plain_done_.size(), plain_ids_.size()) << "seed " << seed;
    std::map<int, ActivationResult> sums;
    for (size_t i = 0; i < plain_done_.size(); ++i) {
      auto [it, first] = sums.try_emplace(plain_ids_[i], plain_done_[i]);
      if (!first) AddRun(it->second, plain_done_[i]);
    }
    ASSERT_EQ(sums.size(), suspending_done_.size()) << "seed " << seed;
    for (size_t i = 0; i < suspending_done_.size(); ++i) {
      const ActivationResult& got = suspending_done_[i];
      const ActivationResult& want = sums.at(suspending_ids_[i]);
      ASSERT_EQ(got.routine, want.routine) << "seed " << seed;
      EXPECT_EQ(got.trms, want.trms) << "seed " << seed << " activation " << suspending_ids_[i];
      EXPECT_EQ(got.rms, want.rms) << "seed " << seed;
      EXPECT_EQ(got.induced_by_threads, want.induced_by_threads) << "seed " << seed;
      EXPECT_EQ(got.induced_by_kernel, want.induced_by_kernel) << "seed " << seed;
      EXPECT_EQ(got.cost, want.cost) << "seed " << seed;
      EXPECT_EQ(got.self_cost, want.self_cost) << "seed " << seed;
      EXPECT_GE(got.trms, got.rms) << "seed " << seed;
    }
  }

  int suspensions() const { return suspensions_; }

 private:
  static EngineOptions Options(unsigned shift) {
    EngineOptions options;
    options.resolution_shift = shift;
    return options;
  }

  template <typename F>
  void Both(F f) {
    f(suspending_);
    f(plain_);
  }

  size_t Depth() const {
    size_t depth = 0;
    for (const Stack& s : chain_) depth += s.size();
    return depth;
  }

  void Call(RoutineId routine) {
    chain_.back().push_back({next_id_++, routine, {}, false});
    Both([&](Engine& e) { e.Call(routine); });
  }

  void Return() {
    if (chain_.back().empty()) return;
    const Logical done = chain_.back().back();
    chain_.back().pop_back();
    if (done.suspended_before)
      suspending_.Return(done.earlier);
    else
      suspending_.Return();
    suspending_ids_.push_back(done.id);
    plain_.Return();
    plain_ids_.push_back(done.id);
  }

  void Suspend() {
    Stack stack = chain_.back();
    chain_.pop_back();
    for (size_t i = stack.size(); i-- > 0;) {
      const ActivationResult run = suspending_.Suspend();
      EXPECT_EQ(run.routine, stack[i].routine);
      if (stack[i].suspended_before)
        AddRun(stack[i].earlier, run);
      else
        stack[i].earlier = run;
      stack[i].suspended_before = true;
      plain_.Return();
      plain_ids_.push_back(stack[i].id);
    }
    suspended_.push_back(stack);
    ++suspensions_;
  }

  void Resume(size_t which) {
    Stack stack = suspended_[which];
    suspended_.erase(suspended_.begin() + static_cast<long>(which));
    for (const Logical& frame : stack) Both([&](Engine& e) { e.Call(frame.routine); });
    chain_.push_back(stack);
  }

  void Finish() {
    while (!chain_.empty()) {
      while (!chain_.back().empty()) Return();
      chain_.pop_back();
    }
    for (const Stack& stack : suspended_) {
      for (size_t i = stack.size(); i-- > 0;) {
        suspending_.CompleteSuspended(stack[i].earlier,
                                      i > 0 ? stack[i - 1].earlier.routine : kNoCaller);
        suspending_ids_.push_back(stack[i].id);
      }
    }
    suspending_.ExitAllThreads();
    plain_.ExitAllThreads();
  }

  Engine suspending_, plain_;
  std::vector<ActivationResult> suspending_done_, plain_done_;
  std::vector<int> suspending_ids_, plain_ids_;  // logical id of each completion
  std::vector<Stack> chain_, suspended_;
  int next_id_ = 0;
  int suspensions_ = 0;
};

TEST(CoroutineRuns, SuspendedActivationsSumTheirRuns) {
  int suspensions = 0;
  for (unsigned shift : {0u, 2u}) {
    for (uint64_t i = 0; i < 1000; ++i) {
      const uint64_t seed = 90001ULL * (shift + 1) + i;
      std::mt19937_64 rng(seed);
      CoroutinePair pair(shift);
      pair.Run(rng, 200 + static_cast<int>(rng() % 300));
      pair.Check(seed);
      if (::testing::Test::HasFailure()) return;
      suspensions += pair.suspensions();
    }
  }
  EXPECT_GT(suspensions, 2000);  // the traces exercise suspension
}

// A goroutine's frame writes 4 cells of its stack and is suspended; the
// runtime copies them on the same thread (reads and writes them) and the
// frame resumes. Its reads of those cells are then new input, unless the
// tracker takes them as accessed by the resumed frame (Go's stack copy:
// Engine::TakeAsAccessedByTop); a cell it never touched stays input.
ActivationResult ResumedAfterCopy(bool take_as_accessed) {
  std::vector<ActivationResult> done;
  Engine e;
  e.set_activation_observer(Collect, &done);
  e.StartThread(1);
  e.SwitchTo(1);
  e.Call(1);
  e.Write(0x1000, 16);
  const ActivationResult run = e.Suspend();
  e.Call(2);  // the copy, outside the frame
  e.Read(0x1000, 16);
  e.Write(0x1000, 16);
  e.Return();
  e.Resume(run, /*first_on_stack=*/true);
  if (take_as_accessed) e.TakeAsAccessedByTop(0x1000, 16);
  e.Read(0x1000, 16);
  e.Read(0x2000, 4);
  e.Return(run);
  return done.back();
}

TEST(CoroutineRuns, CellsTakenAsAccessedAreNotInputAgain) {
  const ActivationResult kept = ResumedAfterCopy(true);
  EXPECT_EQ(kept.routine, 1u);
  EXPECT_EQ(kept.trms, 1u);
  EXPECT_EQ(kept.rms, 1u);
  EXPECT_EQ(ResumedAfterCopy(false).trms, 5u);
}

}  // namespace
}  // namespace aprof::testing
