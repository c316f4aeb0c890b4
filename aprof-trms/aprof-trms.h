/* SPDX-License-Identifier: BSD-3-Clause */
/* Client requests of aprof-trms, for programs that want to limit profiling
   to a region (like callgrind's CALLGRIND_START/STOP_INSTRUMENTATION).
   Include this header; the requests do nothing when the program does not
   run under aprof-trms.

   APROF_TRMS_STOP_COLLECTION: activations that complete from now on are not
     recorded. Input sizes stay exact: memory accesses are still tracked.
   APROF_TRMS_START_COLLECTION: record completed activations again.
   Start the program with --collect-atstart=no to record only between the
   requests.
   Both act on the whole process, not on the calling thread: a STOP in one
   thread stops recording in every thread, until a START in any thread.

   Copyright (C) 2026, the aprof-trms authors.

   This header alone is under the BSD 3-Clause license (the rest of
   aprof-trms is GPL-2.0-or-later), so that programs of any license can
   include it, as they include Valgrind's valgrind.h:

   Redistribution and use in source and binary forms, with or without
   modification, are permitted provided that the following conditions are
   met:
   1. Redistributions of source code must retain the above copyright
      notice, this list of conditions and the following disclaimer.
   2. Redistributions in binary form must reproduce the above copyright
      notice, this list of conditions and the following disclaimer in the
      documentation and/or other materials provided with the distribution.
   3. Neither the name of the copyright holder nor the names of its
      contributors may be used to endorse or promote products derived from
      this software without specific prior written permission.

   THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS
   IS" AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED
   TO, THE IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A
   PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT
   HOLDER OR CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL,
   SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED
   TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR
   PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF
   LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING
   NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF THIS
   SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE. */
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
