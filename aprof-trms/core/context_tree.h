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
  ContextId Enter(ContextTree& tree, RoutineId routine);
  // Another run of a suspended activation: it keeps the node of its first
  // run (a coroutine frame resumed from elsewhere stays where it started).
  void Resume(RoutineId routine, ContextId node) { Push(routine, node); }
  // The top activation, an activation of routine, completes or is
  // suspended; returns its node.
  ContextId Leave(RoutineId routine);

  size_t depth() const { return frames_.size(); }

 private:
  struct PathFrame {
    ContextId node;
    // The routine's nearest pending node before this activation: restored
    // when it leaves, so folding always sees the nearest pending one.
    ContextId shadowed;
  };

  ContextId& NearestPending(RoutineId routine) {
    if (routine >= nearest_.size()) nearest_.resize(routine + 1);
    return nearest_[routine];
  }
  void Push(RoutineId routine, ContextId node);

  InternalVector<PathFrame> frames_;
  // By routine id: the node of the routine's nearest pending activation,
  // kNoContext if none is pending.
  InternalVector<ContextId> nearest_;
};

}  // namespace aprof

#endif  // APROF_CORE_CONTEXT_TREE_H
