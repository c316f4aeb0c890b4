// aprof-trms: Valgrind tool entry point (pre_clo_init, instrumentation, fini).
//
// Copyright (C) 2026, the aprof-trms authors.
// SPDX-License-Identifier: GPL-2.0-or-later
//
// Compiled freestanding (no libc, no libstdc++ at run time); see Makefile.am.

// Our own headers first, before the Valgrind headers define macros such as
// Bool/True/False that could clash with engine identifiers.
#include "aprof_config.h"
#include "core/engine.h"

// Capture the package version now: some Valgrind headers (pub_tool_redir.h)
// pull in Valgrind's own config.h, which defines the same PACKAGE_* macros.
static const char aprof_tool_version[] = PACKAGE_VERSION;
#undef PACKAGE
#undef PACKAGE_BUGREPORT
#undef PACKAGE_NAME
#undef PACKAGE_STRING
#undef PACKAGE_TARNAME
#undef PACKAGE_URL
#undef PACKAGE_VERSION
#undef VERSION

// pub_tool_basics.h and pub_tool_vki.h must stay outside extern "C" (vki
// contains a C++ template); everything else is C and is wrapped so that the
// vgPlain_* names are not mangled.
#include "pub_tool_basics.h"
#include "pub_tool_vki.h"
extern "C" {
#include "pub_tool_libcassert.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_options.h"
#include "pub_tool_tooliface.h"
}

// ---------------------------------------------------------------------------
// The engine: the one place that knows how it is constructed and destroyed.
// ---------------------------------------------------------------------------
static aprof::Engine* aprof_engine = nullptr;

static void aprof_create_engine(void) {
  aprof_engine = new aprof::Engine();
}

static void aprof_destroy_engine(void) {
  delete aprof_engine;
  aprof_engine = nullptr;
}

// ---------------------------------------------------------------------------
// Command-line options (none yet).
// ---------------------------------------------------------------------------
static Bool aprof_process_cmd_line_option(const HChar* arg) {
  (void)arg;
  return False;
}

static void aprof_print_usage(void) {
  VG_(printf)("    (none)\n");
}

static void aprof_print_debug_usage(void) {
  VG_(printf)("    (none)\n");
}

// ---------------------------------------------------------------------------
// Basic tool functions.
// ---------------------------------------------------------------------------
static void aprof_post_clo_init(void) {
  aprof_create_engine();
  if (VG_(clo_verbosity) > 1)
    VG_(message)(Vg_DebugMsg, "aprof-trms: engine created (Valgrind %s)\n",
                 APROF_VALGRIND_VERSION);
}

static IRSB* aprof_instrument(VgCallbackClosure* closure, IRSB* sb_in,
                              const VexGuestLayout* layout,
                              const VexGuestExtents* vge,
                              const VexArchInfo* archinfo_host,
                              IRType gWordTy, IRType hWordTy) {
  (void)closure;
  (void)layout;
  (void)vge;
  (void)archinfo_host;
  (void)gWordTy;
  (void)hWordTy;
  return sb_in;  // Pass-through for now.
}

static void aprof_fini(Int exitcode) {
  (void)exitcode;
  aprof_destroy_engine();
  if (VG_(clo_verbosity) > 1)
    VG_(message)(Vg_DebugMsg, "aprof-trms: engine destroyed\n");
}

static void aprof_pre_clo_init(void) {
  VG_(details_name)("aprof-trms");
  VG_(details_version)(aprof_tool_version);
  VG_(details_description)(
      "input-sensitive profiler for multithreaded programs (TRMS)");
  VG_(details_copyright_author)(
      "Copyright (C) 2026, the aprof-trms authors; GPL-2.0-or-later");
  VG_(details_bug_reports_to)("the aprof-trms issue tracker");

  VG_(basic_tool_funcs)(aprof_post_clo_init, aprof_instrument, aprof_fini);

  VG_(needs_command_line_options)(aprof_process_cmd_line_option,
                                  aprof_print_usage, aprof_print_debug_usage);

  // One superblock = one guest entry point (as callgrind does): needed by
  // call/return detection and by the basic-block cost.
  VG_(clo_vex_control).iropt_unroll_thresh = 0;
  VG_(clo_vex_control).guest_chase = False;
}

VG_DETERMINE_INTERFACE_VERSION(aprof_pre_clo_init)
