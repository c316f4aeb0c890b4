// SPDX-License-Identifier: GPL-2.0-or-later
// Go's asynchronous preemption off (go_preemption.h).
//
// Since Go 1.14 the runtime preempts a goroutine that runs long without a
// call by a signal: preemptM asks signalM to send SIGURG to the goroutine's
// thread, whose handler injects a call to runtime.asyncPreempt, which
// switches to the scheduler; the goroutine resumes later, maybe on another
// thread. Measured, that put other goroutines' work inside the interrupted
// activation and made its own reads after a move to another thread count as
// input from that thread. The tool cannot add GODEBUG=asyncpreemptoff=1 to
// the client's environment (Valgrind builds the client's stack before the
// tool starts), so it drops the signal instead: on Linux the runtime sends
// it with its own assembly routine runtime.tgkill (ABI0: the arguments
// tgid, tid, sig on the stack above the return address), which only signalM
// calls, and the tool turns the signal number SIGURG there into 0, which
// tgkill takes for "send nothing". The runtime then takes the preemption
// request as pending (m.signalPending stays set, so it sends that thread no
// further one), and the goroutine is preempted at its next call, where the
// stack check sees the request: as with asyncpreemptoff=1. Other signals
// signalM sends (for syscall.AllThreadsSyscall) go through unchanged.
//
// Copyright (C) 2026, the aprof-trms authors.
#include "go_preemption.h"

#include <stddef.h>

#include "function_names.h"
#include "options.h"

extern "C" {
#include "libvex_guest_amd64.h"
}

namespace aprof {

namespace {

// The routine's name: Go 1.17 and later name assembly (ABI0) routines that
// Go code calls with the suffix .abi0.
bool IsGoThreadKill(Addr address) {
  const HChar* name;
  return FunctionNameIfEntry(VG_(current_DiEpoch)(), address, &name) &&
         (VG_STREQ(name, "runtime.tgkill.abi0") || VG_STREQ(name, "runtime.tgkill"));
}

// Where runtime.tgkill's signal number lies at its entry: sig+16(FP), the
// frame pointer FP being the stack pointer plus the return address.
constexpr ULong kSignalArgumentOffset = 24;

// `in` with, at the start of its first instruction, the signal argument
// changed from SIGURG to 0.
IRSB* WithoutPreemptionSignal(const IRSB* in, const VexGuestLayout* layout) {
  IRSB* out = deepCopyIRSBExceptStmts(in);
  Int i = 0;
  while (i < in->stmts_used) {
    addStmtToIRSB(out, in->stmts[i]);  // the preamble, then the first mark
    if (in->stmts[i++]->tag == Ist_IMark) break;
  }
  auto temp = [out](IRExpr* value) {
    IRTemp t = newIRTemp(out->tyenv, typeOfIRExpr(out->tyenv, value));
    addStmtToIRSB(out, IRStmt_WrTmp(t, value));
    return IRExpr_RdTmp(t);
  };
  IRExpr* sp = temp(IRExpr_Get(layout->offset_SP, Ity_I64));
  IRExpr* slot = temp(IRExpr_Binop(Iop_Add64, sp, IRExpr_Const(IRConst_U64(kSignalArgumentOffset))));
  IRExpr* signal = temp(IRExpr_Load(Iend_LE, Ity_I64, slot));
  IRExpr* preemption = temp(IRExpr_Binop(Iop_CmpEQ64, signal, IRExpr_Const(IRConst_U64(VKI_SIGURG))));
  IRExpr* sent = temp(IRExpr_ITE(preemption, IRExpr_Const(IRConst_U64(0)), signal));
  addStmtToIRSB(out, IRStmt_Store(Iend_LE, slot, sent));
  for (; i < in->stmts_used; ++i) addStmtToIRSB(out, in->stmts[i]);
  return out;
}

// Set when runtime.tgkill was translated: the client is a Go program.
bool go_thread_kill_seen = false;

}  // namespace

IRSB* WithoutGoAsyncPreemption(IRSB* in, const VexGuestLayout* layout, Addr address) {
  if (!IsGoThreadKill(address)) return in;
  go_thread_kill_seen = true;
  if (TheOptions().go_async_preemption) return in;
  return WithoutPreemptionSignal(in, layout);
}

bool GoThreadKillSeen() { return go_thread_kill_seen; }

bool EntersGoroutine(Addr address) {
  // runtime.gogo (Go 1.16 and earlier), or runtime.gogo.abi0 and the local
  // routine gogo it jumps to (Go 1.17 and later).
  const HChar* name;
  return FunctionNameAt(VG_(current_DiEpoch)(), address, &name) &&
         (VG_STREQ(name, "gogo") || VG_STREQ(name, "runtime.gogo") ||
          VG_STREQ(name, "runtime.gogo.abi0"));
}

bool LoadsGoroutineRegister(Addr address) {
  const HChar* name;
  return FunctionNameAt(VG_(current_DiEpoch)(), address, &name) && VG_STREQ(name, "gogo");
}

bool ResumedGoroutine(ThreadId tid, uptr stack_pointer, GoroutineStack* resumed) {
  uptr g = 0;
  VG_(get_shadow_regs_area)(tid, reinterpret_cast<UChar*>(&g), 0,
                            offsetof(VexGuestAMD64State, guest_R14), sizeof g);
  if (g == 0 || !VG_(am_is_valid_for_client)(g, 2 * sizeof(uptr), VKI_PROT_READ)) return false;
  const uptr* stack = reinterpret_cast<const uptr*>(g);  // g.stack.lo, g.stack.hi
  if (!(stack[0] <= stack_pointer && stack_pointer < stack[1])) return false;
  *resumed = {g, stack[0], stack[1]};
  return true;
}

}  // namespace aprof
