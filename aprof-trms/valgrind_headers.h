// SPDX-License-Identifier: GPL-2.0-or-later
// The Valgrind tool headers the glue uses, in the order C++ needs:
// pub_tool_basics.h and pub_tool_vki.h outside extern "C" (vki holds a C++
// template), every other header inside it so the vgPlain_* names keep C
// linkage. Include after the engine headers: Valgrind defines macros such as
// Bool and True.
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_VALGRIND_HEADERS_H
#define APROF_VALGRIND_HEADERS_H

#include "pub_tool_basics.h"
#include "pub_tool_vki.h"
extern "C" {
#include "pub_tool_aspacemgr.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_gdbserver.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_seqmatch.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vkiscnums.h"
#include "pub_tool_xarray.h"

// Core functions and variables without a tool header (declared in
// Valgrind's pub_core_debuginfo.h, pub_core_demangle.h, pub_core_libcfile.h,
// pub_core_options.h and pub_core_syscall.h, exported by libcoregrind).
Bool VG_(get_fnname_raw)(DiEpoch ep, Addr a, const HChar** buf);
void VG_(demangle)(Bool do_cxx_demangling, Bool do_z_demangling, const HChar* orig,
                   const HChar** result);
const HChar* VG_(strerror)(UWord errnum);
// --max-stackframe (pub_core_options.h): a larger stack pointer move is a
// stack switch.
extern SizeT VG_(clo_max_stackframe);
// --sanity-level (pub_core_options.h): how thorough the sanity checks are.
extern Int VG_(clo_sanity_level);
SysRes VG_(do_syscall)(UWord sysno, RegWord, RegWord, RegWord, RegWord, RegWord, RegWord, RegWord,
                       RegWord);
}

#endif  // APROF_VALGRIND_HEADERS_H
