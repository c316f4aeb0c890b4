// SPDX-License-Identifier: GPL-2.0-or-later
// Per-thread profile tables (profile_table.h): recording activations.
#include "profile_table.h"

namespace aprof {

namespace {

void AddToTuple(InputSizeTuple& t, const ActivationResult& a) {
  if (t.calls == 0 || a.cost < t.min_cost) t.min_cost = a.cost;
  if (a.cost > t.max_cost) t.max_cost = a.cost;
  ++t.calls;
  t.sum_cost += a.cost;
  t.sum_cost_squared.Add(static_cast<u128>(a.cost) * a.cost);
  t.sum_self_cost += a.self_cost;
  t.sum_induced_by_threads += a.induced_by_threads;
  t.sum_induced_by_kernel += a.induced_by_kernel;
}

}  // namespace

void MergeTuple(InputSizeTuple& into, const InputSizeTuple& from) {
  if (from.min_cost < into.min_cost) into.min_cost = from.min_cost;
  if (from.max_cost > into.max_cost) into.max_cost = from.max_cost;
  into.calls += from.calls;
  into.sum_cost += from.sum_cost;
  into.sum_cost_squared.Add(from.sum_cost_squared);
  into.sum_self_cost += from.sum_self_cost;
  into.sum_induced_by_threads += from.sum_induced_by_threads;
  into.sum_induced_by_kernel += from.sum_induced_by_kernel;
}

RoutineTotals& ThreadProfile::TotalsOf(RoutineId routine) {
  if (routine >= routines_.size()) routines_.resize(routine + 1);
  return routines_[routine];
}

void ThreadProfile::RecordCall(RoutineId routine) { ++TotalsOf(routine).pending; }

void ThreadProfile::RecordActivation(const ActivationResult& a, bool record, RoutineId caller) {
  const bool outermost = --TotalsOf(a.routine).pending == 0;
  if (record) AddActivation(a, outermost, caller);
}

void ThreadProfile::AddActivation(const ActivationResult& a, bool outermost, RoutineId caller) {
  RoutineTotals& totals = TotalsOf(a.routine);
  if (a.trms == a.rms) {
    AddToTuple(equal_sizes_.FindOrInsert({a.routine, a.trms}), a);
  } else {
    AddToTuple(own_sizes_[static_cast<u32>(InputMetric::kTrms)].FindOrInsert({a.routine, a.trms}), a);
    AddToTuple(own_sizes_[static_cast<u32>(InputMetric::kRms)].FindOrInsert({a.routine, a.rms}), a);
  }

  ++totals.calls;
  totals.self_cost += a.self_cost;
  if (outermost) totals.cumulative_cost += a.cost;
  if (caller != kNoCaller) {
    CallEdgeTotals& edge = edges_.FindOrInsert({caller, a.routine});
    ++edge.calls;
    edge.inclusive_cost += a.cost;
  }
}

void ThreadProfile::ClearRecorded() {
  equal_sizes_.Clear();
  for (InputSizeTable& table : own_sizes_) table.Clear();
  for (RoutineTotals& totals : routines_) totals = RoutineTotals{0, 0, 0, totals.pending};
  sources_.Clear();
  edges_.Clear();
  for (InputSizeTable& table : context_tables_) table.Clear();
}

void ThreadProfile::RecordContextActivation(const ActivationResult& a) {
  APROF_CHECK_NE(a.context, kNoContext);
  AddToTuple(context_tables_[static_cast<u32>(InputMetric::kTrms)].FindOrInsert({a.context, a.trms}), a);
  AddToTuple(context_tables_[static_cast<u32>(InputMetric::kRms)].FindOrInsert({a.context, a.rms}), a);
}

}  // namespace aprof
