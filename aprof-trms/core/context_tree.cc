// SPDX-License-Identifier: GPL-2.0-or-later
// The calling-context tree (context_tree.h): finding or adding a child
// context, recursion folded.
//
// Copyright (C) 2026, the aprof-trms authors.
#include "context_tree.h"

#include "platform.h"

namespace aprof {

ContextTree::ContextTree(u32 depth_limit) : depth_limit_(depth_limit) {
  APROF_CHECK_GE(depth_limit, 1u);
  nodes_.push_back(ContextNode{});
}

ContextId ContextTree::ChildOf(ContextId parent, RoutineId routine) {
  if (parent != kNoContext && nodes_[parent].depth == depth_limit_) parent = nodes_[parent].parent;
  ContextId& child = children_.FindOrInsert({parent, routine});
  if (child == kNoContext) {
    child = static_cast<ContextId>(nodes_.size());
    APROF_CHECK_NE(child, kNoContext);  // 2^32 - 1 nodes at most
    const u32 depth = parent == kNoContext ? 1 : nodes_[parent].depth + 1;
    nodes_.push_back({parent, routine, depth});
  }
  return child;
}

ContextId ContextPath::Enter(ContextTree& tree, RoutineId routine, bool first_on_stack) {
  const u32 segment = SegmentOfNext(first_on_stack);
  const u32 pending = NearestPending(routine);  // 1 + its index, 0: none
  ContextId node;
  if (pending > segment)
    node = frames_[pending - 1].node;
  else
    node = tree.ChildOf(frames_.size() == segment ? kNoContext : frames_.back().node, routine);
  Push(routine, node, first_on_stack);
  return node;
}

void ContextPath::Push(RoutineId routine, ContextId node, bool first_on_stack) {
  const u32 segment = SegmentOfNext(first_on_stack);
  u32& nearest = NearestPending(routine);
  frames_.push_back({node, nearest, segment});
  nearest = static_cast<u32>(frames_.size());
}

ContextId ContextPath::Leave(RoutineId routine) {
  APROF_CHECK(!frames_.empty());
  const PathFrame top = frames_.back();
  frames_.pop_back();
  NearestPending(routine) = top.shadowed;
  return top.node;
}

}  // namespace aprof
