/* Client requests of aprof-trms, for programs that want to limit profiling
   to a region (like callgrind's CALLGRIND_START/STOP_INSTRUMENTATION).
   Include this header; the requests do nothing when the program does not
   run under aprof-trms.

   APROF_TRMS_STOP_COLLECTION: activations that complete from now on are not
     recorded. Input sizes stay exact: memory accesses are still tracked.
   APROF_TRMS_START_COLLECTION: record completed activations again.
   Start the program with --collect-atstart=no to record only between the
   requests.

   Copyright (C) 2026, the aprof-trms authors.
   SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef APROF_TRMS_H
#define APROF_TRMS_H

#include <valgrind/valgrind.h>

typedef enum {
  VG_USERREQ__APROF_TRMS_START_COLLECTION = VG_USERREQ_TOOL_BASE('A', 'T'),
  VG_USERREQ__APROF_TRMS_STOP_COLLECTION
} Vg_AprofTrmsClientRequest;

#define APROF_TRMS_START_COLLECTION \
  VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__APROF_TRMS_START_COLLECTION, 0, 0, 0, 0, 0)
#define APROF_TRMS_STOP_COLLECTION \
  VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__APROF_TRMS_STOP_COLLECTION, 0, 0, 0, 0, 0)

#endif /* APROF_TRMS_H */
