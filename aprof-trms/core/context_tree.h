// SPDX-License-Identifier: GPL-2.0-or-later
// Calling contexts (--collect-context=yes; docs/design.md, "Calling
// contexts"): the calling-context tree of the process, shared by its
// threads, and each thread's path of pending activations through it.
//
// A node is a chain of routines from a root. An activation of routine r
// gets, in O(1) expected time:
//  - the node of the nearest pending activation of r on the thread's stack,
//    if there is one (recursion folding: no routine twice on a path);
//  - else child(P, r), P being its parent activation's node (a root if none);
//  - but child(P.parent, r) if P is at the depth limit, so that no node is
//    deeper than the limit.
// The path is cut into segments, one per machine stack whose frames are
// pending (the thread's own, then each coroutine stack resumed on top): the
// first frame of a coroutine's stack is a root, and folding looks only at
// the activations of its own segment, so a coroutine's contexts are chains
// of its own frames, whoever resumed it.
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_CORE_CONTEXT_TREE_H
#define APROF_CORE_CONTEXT_TREE_H

#include "hash_map.h"
#include "internal_vector.h"
#include "types.h"

namespace aprof {

struct ContextNode {
  ContextId parent;  // kNoContext for a root; always a smaller id
  RoutineId routine;
  u32 depth;  // 1 for a root
};

class ContextTree {
 public:
  explicit ContextTree(u32 depth_limit);
  ContextTree(const ContextTree&) = delete;
  ContextTree& operator=(const ContextTree&) = delete;

  u32 depth_limit() const { return depth_limit_; }
  // Nodes have ids 1 .. size().
  size_t size() const { return nodes_.size() - 1; }
  const ContextNode& node(ContextId id) const { return nodes_[id]; }

  // The node of routine called below `parent` (kNoContext: a root),
  // created if new; below a node at the depth limit, the node that takes
  // its place under the limit (a sibling of `parent`).
  ContextId ChildOf(ContextId parent, RoutineId routine);

 private:
  struct ChildKey {
    ContextId parent;
    RoutineId routine;
  };
  struct ChildKeyTraits {
    static u64 Hash(const ChildKey& k) {
      return MixHash((static_cast<u64>(k.parent) << 32) | k.routine);
    }
    static bool Equal(const ChildKey& a, const ChildKey& b) {
      return a.parent == b.parent && a.routine == b.routine;
    }
  };

  const u32 depth_limit_;
  InternalVector<ContextNode> nodes_;  // [0] unused: kNoContext
  HashMap<ChildKey, ContextId, ChildKeyTraits> children_;
};

// One thread's pending activations as context nodes, in step with its
// shadow stack: Enter/Resume at every push, Leave at every pop, however the
// frame is popped (return, unwinding, suspension, thread exit).
class ContextPath {
 public:
  ContextPath() = default;
  ContextPath(const ContextPath&) = delete;
  ContextPath& operator=(const ContextPath&) = delete;

  // A new activation of routine on top of the path; returns its node.
  // first_on_stack: the first frame of a coroutine's stack, which starts a
  // segment as a root.
  ContextId Enter(ContextTree& tree, RoutineId routine, bool first_on_stack = false);
  // Another run of a suspended activation: it keeps the node of its first
  // run (a coroutine frame resumed from elsewhere stays where it started);
  // first_on_stack as for Enter.
  void Resume(RoutineId routine, ContextId node, bool first_on_stack) {
    Push(routine, node, first_on_stack);
  }
  // The top activation, an activation of routine, completes or is
  // suspended; returns its node.
  ContextId Leave(RoutineId routine);

  size_t depth() const { return frames_.size(); }

 private:
  struct PathFrame {
    ContextId node;
    // The routine's nearest pending frame before this activation (as in
    // nearest_): restored when it leaves, so folding always sees the
    // nearest pending one.
    u32 shadowed;
    // Where this frame's segment starts (the index of its stack's first
    // pending frame): folding does not look below it.
    u32 segment;
  };

  u32& NearestPending(RoutineId routine) {
    if (routine >= nearest_.size()) nearest_.resize(routine + 1);
    return nearest_[routine];
  }
  // The segment a frame pushed now belongs to.
  u32 SegmentOfNext(bool first_on_stack) const {
    return first_on_stack || frames_.empty() ? static_cast<u32>(frames_.size())
                                             : frames_.back().segment;
  }
  void Push(RoutineId routine, ContextId node, bool first_on_stack);

  InternalVector<PathFrame> frames_;
  // By routine id: 1 + the index of the routine's nearest pending frame, 0
  // if none is pending.
  InternalVector<u32> nearest_;
};

}  // namespace aprof

#endif  // APROF_CORE_CONTEXT_TREE_H
