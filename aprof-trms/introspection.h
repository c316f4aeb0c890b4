// SPDX-License-Identifier: GPL-2.0-or-later
// What the tool tells about itself: statistics (--stats=yes, -v, and
// vgdb's `v.info stats` during the run) and sanity checks of its state
// (Valgrind's --sanity-level).
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_INTROSPECTION_H
#define APROF_INTROSPECTION_H

namespace aprof {

// Registers the statistics printer and the sanity checks with Valgrind's
// core (pre_clo_init).
void RegisterIntrospection();
// At exit, with --stats=yes or -v: prints the statistics.
void PrintStatisticsAtExit();

}  // namespace aprof

#endif  // APROF_INTROSPECTION_H
