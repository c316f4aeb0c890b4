// SPDX-License-Identifier: GPL-2.0-or-later
// Calling contexts (context_tree.h): the engine's context of every
// activation against a naive model that keeps each thread's explicit stack
// of routines and computes every context path by folding and truncating the
// list literally (CONTEXT-FORMAT rules, docs/design.md), on random traces
// with threads, unwinds of several frames, suspended and resumed
// activations, first frames of coroutine stacks (which root their own
// contexts) and collection switched off and on; and the invariant that a
// routine's context records add up to its routine records.
//
// Copyright (C) 2026, the aprof-trms authors.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/engine.h"

namespace aprof::testing {
namespace {

using Path = std::vector<RoutineId>;

std::string ToString(const Path& path) {
  std::ostringstream out;
  for (size_t i = 0; i < path.size(); ++i) out << (i ? "/" : "") << path[i];
  return out.str();
}

// The routines of a node's chain, root first.
Path PathOf(const ContextTree& tree, ContextId id) {
  Path path;
  for (; id != kNoContext; id = tree.node(id).parent) path.insert(path.begin(), tree.node(id).routine);
  return path;
}

// The naive rule: the path of the nearest pending activation of routine on
// the same machine stack if any (folding); else the parent's path plus
// routine, the parent's last routine dropped first when the parent's path
// is already `limit` long. The first frame of a coroutine's stack has no
// parent: its path is the routine alone.
struct Pending {
  RoutineId routine;
  Path path;
  bool first_on_stack = false;
  bool suspended_before = false;
  ActivationResult earlier{};  // what its earlier runs measured
};

Path NaivePath(const std::vector<Pending>& stack, RoutineId routine, size_t limit,
               bool first_on_stack) {
  if (first_on_stack) return Path{routine};
  for (size_t i = stack.size(); i-- > 0;) {
    if (stack[i].routine == routine) return stack[i].path;
    if (stack[i].first_on_stack) break;
  }
  Path path = stack.empty() ? Path{} : stack.back().path;
  if (path.size() == limit) path.pop_back();
  path.push_back(routine);
  return path;
}

void Collect(void* context, const ThreadRecord&, const ActivationResult& a) {
  static_cast<std::vector<ActivationResult>*>(context)->push_back(a);
}

// Drives an engine with contexts and the naive model through the same
// random operations, checking each completed activation's context as it
// completes.
class ContextModel {
 public:
  ContextModel(u32 limit, uint64_t seed) : engine_(Options(limit)), limit_(limit), seed_(seed) {
    engine_.set_activation_observer(Collect, &done_);
    Start(1);
  }

  void Run(std::mt19937_64& rng, int events) {
    auto pick = [&](uint64_t n) { return rng() % n; };
    for (int n = 0; n < events && !::testing::Test::HasFatalFailure(); ++n) {
      const int roll = static_cast<int>(pick(100));
      Thread& t = threads_[current_];
      if (roll < 6) {
        SwitchOrStart(static_cast<ThreadId>(1 + pick(3)));
      } else if (roll < 8 && current_ != 1) {
        ExitCurrent();
      } else if (roll < 28 && Depth(t) < 14) {
        Call(static_cast<RoutineId>(1 + pick(5)), /*first_on_stack=*/false);
      } else if (roll < 30 && Depth(t) < 14) {
        Call(static_cast<RoutineId>(1 + pick(5)), /*first_on_stack=*/true);
      } else if (roll < 38) {
        Return();
      } else if (roll < 41) {
        for (uint64_t k = 2 + pick(4); k > 0; --k) Return();  // unwinding: longjmp, exceptions
      } else if (roll < 44 && !t.stack.empty()) {
        Suspend(1 + pick(t.stack.size()));
      } else if (roll < 47 && !t.parked.empty()) {
        Resume(pick(t.parked.size()));
      } else if (roll < 48) {
        engine_.set_recording(!recording_);
        recording_ = !recording_;
      } else if (roll < 60) {
        engine_.AddCost(1 + pick(7));
      } else if (roll < 85) {
        engine_.Read(0x1000 + 4 * pick(24), 4);
      } else {
        engine_.Write(0x1000 + 4 * pick(24), 4);
      }
    }
    for (auto& [tid, t] : threads_) {
      engine_.SwitchTo(tid);
      current_ = tid;
      CompleteAll();
    }
    engine_.ExitAllThreads();
  }

  // The tree: one node per distinct path of an activation, well formed.
  void CheckTree() const {
    const ContextTree& tree = *engine_.contexts();
    EXPECT_EQ(tree.size(), paths_.size()) << "seed " << seed_;
    for (ContextId id = 1; id <= tree.size(); ++id) {
      const ContextNode& node = tree.node(id);
      ASSERT_LT(node.parent, id) << "seed " << seed_;
      ASSERT_EQ(node.depth, node.parent == kNoContext ? 1u : tree.node(node.parent).depth + 1);
      ASSERT_LE(node.depth, limit_) << "seed " << seed_;
      EXPECT_EQ(paths_.count(PathOf(tree, id)), 1u) << "seed " << seed_ << " node " << id;
    }
  }

  // Per thread, routine and input size, the context records of the
  // routine's contexts add up to the routine record.
  void CheckContextsSumToRoutines() const {
    const ContextTree& tree = *engine_.contexts();
    for (size_t i = 0; i < engine_.thread_record_count(); ++i) {
      const ThreadProfile& profile = engine_.thread_record(i).profile;
      for (InputMetric metric : {InputMetric::kTrms, InputMetric::kRms}) {
        std::map<std::pair<RoutineId, u64>, InputSizeTuple> sums;
        profile.context_table(metric).ForEach([&](const ProfileKey& key, const InputSizeTuple& t) {
          InputSizeTuple& s = sums[{tree.node(key.routine).routine, key.input_size}];
          s.min_cost = s.calls == 0 ? t.min_cost : std::min(s.min_cost, t.min_cost);
          s.max_cost = std::max(s.max_cost, t.max_cost);
          s.calls += t.calls;
          s.sum_cost += t.sum_cost;
          s.sum_cost_squared.Add(t.sum_cost_squared);
          s.sum_self_cost += t.sum_self_cost;
          s.sum_induced_by_threads += t.sum_induced_by_threads;
          s.sum_induced_by_kernel += t.sum_induced_by_kernel;
        });
        size_t routine_tuples = 0;
        profile.ForEachTuple(metric, [&](const ProfileKey&, const InputSizeTuple&) { ++routine_tuples; });
        EXPECT_EQ(sums.size(), routine_tuples) << "seed " << seed_;
        profile.ForEachTuple(metric, [&](const ProfileKey& key, const InputSizeTuple& want) {
          const auto it = sums.find({key.routine, key.input_size});
          ASSERT_NE(it, sums.end()) << "seed " << seed_ << " routine " << key.routine;
          const InputSizeTuple& got = it->second;
          EXPECT_EQ(got.calls, want.calls) << "seed " << seed_;
          EXPECT_EQ(got.min_cost, want.min_cost) << "seed " << seed_;
          EXPECT_EQ(got.max_cost, want.max_cost) << "seed " << seed_;
          EXPECT_EQ(got.sum_cost, want.sum_cost) << "seed " << seed_;
          EXPECT_TRUE(got.sum_cost_squared == want.sum_cost_squared) << "seed " << seed_;
          EXPECT_EQ(got.sum_self_cost, want.sum_self_cost) << "seed " << seed_;
          EXPECT_EQ(got.sum_induced_by_threads, want.sum_induced_by_threads) << "seed " << seed_;
          EXPECT_EQ(got.sum_induced_by_kernel, want.sum_induced_by_kernel) << "seed " << seed_;
        });
      }
    }
  }

  size_t checked() const { return checked_; }
  size_t folded() const { return folded_; }
  size_t truncated() const { return truncated_; }
  size_t resumed() const { return resumed_; }
  size_t first_on_stack() const { return first_on_stack_; }

 private:
  struct Thread {
    std::vector<Pending> stack;
    std::vector<std::vector<Pending>> parked;  // suspended stacks
  };

  static EngineOptions Options(u32 limit) {
    EngineOptions options;
    options.context_depth = limit;
    return options;
  }

  static size_t Depth(const Thread& t) { return t.stack.size(); }

  void Start(ThreadId tid) {
    engine_.StartThread(tid);
    engine_.SwitchTo(tid);
    threads_[tid] = Thread{};
    current_ = tid;
  }

  void SwitchOrStart(ThreadId tid) {
    if (!threads_.count(tid)) return Start(tid);
    engine_.SwitchTo(tid);
    current_ = tid;
  }

  void ExitCurrent() {
    CompleteAll();
    engine_.ExitThread(current_);
    threads_.erase(current_);
    current_ = 1;
    engine_.SwitchTo(1);
  }

  void Call(RoutineId routine, bool first_on_stack) {
    Thread& t = threads_[current_];
    Pending p{routine, NaivePath(t.stack, routine, limit_, first_on_stack), first_on_stack};
    bool pending = false;
    for (size_t i = t.stack.size(); i-- > 0 && !first_on_stack;) {
      pending |= t.stack[i].routine == routine;
      if (t.stack[i].first_on_stack) break;
    }
    if (pending) ++folded_;
    if (!pending && !first_on_stack && !t.stack.empty() && t.stack.back().path.size() == limit_)
      ++truncated_;
    if (first_on_stack) ++first_on_stack_;
    paths_.insert(p.path);
    t.stack.push_back(p);
    if (first_on_stack)
      engine_.CallFirstOnStack(routine);
    else
      engine_.Call(routine);
  }

  // The engine's latest completion (if recorded) is `want`.
  void ExpectCompleted(const Pending& want, const ActivationResult* suspended = nullptr) {
    const ActivationResult* got = suspended;
    if (!got) {
      if (!recording_) return;
      ASSERT_FALSE(done_.empty());
      got = &done_.back();
    }
    ASSERT_EQ(got->routine, want.routine) << "seed " << seed_;
    ASSERT_EQ(ToString(PathOf(*engine_.contexts(), got->context)), ToString(want.path))
        << "seed " << seed_ << ", routine " << want.routine;
    ++checked_;
  }

  void Return() {
    Thread& t = threads_[current_];
    if (t.stack.empty()) {
      engine_.Return();  // unmatched: nothing completes
      return;
    }
    const Pending done = t.stack.back();
    t.stack.pop_back();
    const size_t before = done_.size();
    if (done.suspended_before)
      engine_.Return(done.earlier);
    else
      engine_.Return();
    EXPECT_EQ(done_.size(), before + (recording_ ? 1 : 0)) << "seed " << seed_;
    ExpectCompleted(done);
  }

  // The top `count` frames stop running (a coroutine's stack is left).
  void Suspend(size_t count) {
    Thread& t = threads_[current_];
    std::vector<Pending> parked(t.stack.end() - static_cast<long>(count), t.stack.end());
    t.stack.resize(t.stack.size() - count);
    for (size_t i = parked.size(); i-- > 0;) {
      const ActivationResult run = engine_.Suspend();
      ExpectCompleted(parked[i], &run);
      if (parked[i].suspended_before)
        AddRun(parked[i].earlier, run);
      else
        parked[i].earlier = run;
      parked[i].suspended_before = true;
    }
    t.parked.push_back(parked);
  }

  // The parked frames resume as a stack of their own: the first starts a
  // segment, whatever it was when it was called.
  void Resume(size_t which) {
    Thread& t = threads_[current_];
    std::vector<Pending> parked = t.parked[which];
    t.parked.erase(t.parked.begin() + static_cast<long>(which));
    for (size_t i = 0; i < parked.size(); ++i) {
      parked[i].first_on_stack = i == 0;
      engine_.Resume(parked[i].earlier, i == 0);
      t.stack.push_back(parked[i]);
      ++resumed_;
    }
  }

  // As the tool at a thread's exit: the running frames return, then the
  // suspended ones complete with their earlier runs.
  void CompleteAll() {
    Thread& t = threads_[current_];
    while (!t.stack.empty()) Return();
    for (const std::vector<Pending>& parked : t.parked) {
      for (size_t i = parked.size(); i-- > 0;) {
        engine_.CompleteSuspended(parked[i].earlier,
                                  i > 0 ? parked[i - 1].routine : kNoCaller);
        ExpectCompleted(parked[i]);
      }
    }
    t.parked.clear();
  }

  Engine engine_;
  const size_t limit_;
  const uint64_t seed_;
  std::map<ThreadId, Thread> threads_;
  ThreadId current_ = 1;
  bool recording_ = true;
  std::vector<ActivationResult> done_;
  std::set<Path> paths_;
  size_t checked_ = 0, folded_ = 0, truncated_ = 0, resumed_ = 0, first_on_stack_ = 0;
};

TEST(Contexts, MatchNaiveFoldingAndTruncationOnRandomTraces) {
  size_t checked = 0, folded = 0, truncated = 0, resumed = 0, first_on_stack = 0;
  for (u32 limit : {1u, 2u, 3u, 5u, 100u}) {
    for (uint64_t i = 0; i < 300; ++i) {
      const uint64_t seed = 7700001ULL * limit + i;
      std::mt19937_64 rng(seed);
      ContextModel model(limit, seed);
      model.Run(rng, 100 + static_cast<int>(rng() % 400));
      model.CheckTree();
      model.CheckContextsSumToRoutines();
      if (::testing::Test::HasFailure()) return;
      checked += model.checked();
      folded += model.folded();
      truncated += model.truncated();
      resumed += model.resumed();
      first_on_stack += model.first_on_stack();
    }
  }
  // The traces exercise every rule.
  EXPECT_GT(checked, 50000u);
  EXPECT_GT(folded, 5000u);
  EXPECT_GT(truncated, 5000u);
  EXPECT_GT(resumed, 2000u);
  EXPECT_GT(first_on_stack, 2000u);
}

enum : RoutineId { kF = 1, kG, kH, kMain };

Path ContextOfTop(Engine& engine) {
  std::vector<ActivationResult> done;
  engine.set_activation_observer(Collect, &done);
  engine.Return();
  engine.set_activation_observer(nullptr, nullptr);
  return PathOf(*engine.contexts(), done.at(0).context);
}

EngineOptions WithContexts(u32 limit) {
  EngineOptions options;
  options.context_depth = limit;
  return options;
}

TEST(Contexts, RecursionFoldsOntoTheOutermostActivation) {
  Engine engine(WithContexts(10));
  engine.SwitchTo(1);
  for (RoutineId r : {kMain, kF, kG, kF, kG, kF}) engine.Call(r);
  engine.Call(kH);  // below the innermost f: its node is main/f
  EXPECT_EQ(ContextOfTop(engine), (Path{kMain, kF, kH}));
  EXPECT_EQ(ContextOfTop(engine), (Path{kMain, kF}));
  EXPECT_EQ(ContextOfTop(engine), (Path{kMain, kF, kG}));
  EXPECT_EQ(engine.contexts()->size(), 4u);  // main, main/f, main/f/g, main/f/h
}

TEST(Contexts, TheDepthLimitReplacesTheDeepestRoutine) {
  Engine engine(WithContexts(2));
  engine.SwitchTo(1);
  for (RoutineId r : {kMain, kF, kG, kH}) engine.Call(r);
  EXPECT_EQ(ContextOfTop(engine), (Path{kMain, kH}));
  EXPECT_EQ(ContextOfTop(engine), (Path{kMain, kG}));
  EXPECT_EQ(ContextOfTop(engine), (Path{kMain, kF}));
  EXPECT_EQ(ContextOfTop(engine), (Path{kMain}));
}

TEST(Contexts, ThreadsShareTheTree) {
  Engine engine(WithContexts(8));
  for (ThreadId tid : {1u, 2u}) {
    engine.SwitchTo(tid);
    engine.Call(kMain);
    engine.Call(kF);
  }
  engine.SwitchTo(3);
  engine.Call(kG);
  engine.Call(kF);
  engine.ExitAllThreads();
  EXPECT_EQ(engine.contexts()->size(), 4u);  // main, main/f, g, g/f
  for (size_t i = 0; i < 2; ++i)
    EXPECT_EQ(engine.thread_record(i).profile.context_table(InputMetric::kTrms).size(), 2u);
}

TEST(Contexts, OffByDefault) {
  Engine engine;
  std::vector<ActivationResult> done;
  engine.set_activation_observer(Collect, &done);
  engine.SwitchTo(1);
  engine.Call(kF);
  engine.Return();
  EXPECT_EQ(engine.contexts(), nullptr);
  EXPECT_EQ(done.at(0).context, kNoContext);
  EXPECT_EQ(engine.thread_record(0).profile.context_table(InputMetric::kTrms).size(), 0u);
}

// A million-deep recursion, direct and mutual: one node per routine on the
// chain, whatever the depth.
TEST(Contexts, DeepRecursionKeepsTheTreeSmall) {
  Engine engine(WithContexts(64));
  engine.SwitchTo(1);
  engine.Call(kMain);
  for (int i = 0; i < 1000000; ++i) engine.Call(i % 2 ? kG : kF);
  EXPECT_EQ(engine.contexts()->size(), 3u);
  for (int i = 0; i < 1000000; ++i) engine.Return();
  for (int i = 0; i < 1000000; ++i) engine.Call(kH);
  engine.ExitAllThreads();
  EXPECT_EQ(engine.contexts()->size(), 4u);
  const InputSizeTable& table = engine.thread_record(0).profile.context_table(InputMetric::kRms);
  u64 calls = 0;
  table.ForEach([&](const ProfileKey&, const InputSizeTuple& t) { calls += t.calls; });
  EXPECT_EQ(calls, 2000001u);
}

}  // namespace
}  // namespace aprof::testing
