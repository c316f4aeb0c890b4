// SPDX-License-Identifier: GPL-2.0-or-later
// VEX instrumentation (instrument.h): the entry hook, the cost counter and
// the access hooks added to every superblock.
//
// Copyright (C) 2026, the aprof-trms authors.
#include "instrument.h"

#include "function_names.h"
#include "go_preemption.h"
#include "object_lookup.h"
#include "options.h"
#include "runtime_hooks.h"
#include "string_instruction.h"

namespace aprof {

namespace {

ExitKind KindOfJump(IRJumpKind jk) {
  switch (jk) {
    case Ijk_Boring: return ExitKind::kJump;
    case Ijk_Call: return ExitKind::kCall;
    case Ijk_Ret: return ExitKind::kReturn;
    default: return ExitKind::kSystem;
  }
}

class SuperblockInstrumenter {
 public:
  SuperblockInstrumenter(IRSB* in, const VexGuestLayout* layout, uptr address)
      : in_(in), layout_(layout), out_(deepCopyIRSBExceptStmts(in)),
        count_instructions_(TheOptions().cost_metric == CostMetric::kInstructions),
        cell_bytes_(TheOptions().memory_resolution),
        write_hook_(TheOptions().input_sources ? &OnWriteTagged : &OnWrite),
        wide_write_hook_(TheOptions().input_sources ? &OnWriteWideTagged : &OnWriteWide),
        rep_element_bytes_(RepStringIteration(in)) {
    u32 side_exits = 0;
    for (Int i = 0; i < in->stmts_used; ++i) side_exits += in->stmts[i]->tag == Ist_Exit;
    const SizeT bytes = sizeof(SuperblockInfo) + side_exits * sizeof(ExitInfo);
    info_ = static_cast<SuperblockInfo*>(VG_(calloc)("aprof.superblocks", 1, bytes));
    info_->address = address;
    epoch_ = VG_(current_DiEpoch)();
    info_->object = VG_(find_DebugInfo)(epoch_, address);
    const HChar* ignored;
    info_->section = VG_(DebugInfo_sect_kind)(&ignored, address);
    info_->is_function_entry = IsFunctionEntry(epoch_, address);
    info_->is_plt_stub = info_->section == Vg_SectPLT ||
                         LooksLikePltStub(in, epoch_, address, ObjectDebugInfo(epoch_, address));
    info_->enters_goroutine = EntersGoroutine(address);
    info_->names_goroutine = info_->enters_goroutine && LoadsGoroutineRegister(address);
  }

  // Stubs in .plt.got and .plt.sec, which Valgrind does not classify as
  // PLT: no symbol, at most two instructions (endbr64; jmp *GOT(%rip)), and
  // an indirect jump through a fixed slot of the object's GOT. A symbol-less
  // function that jumps through a register (jmp *0x410(%rdi), a dispatcher
  // of a stripped binary) is a routine: its calls must not vanish.
  static bool LooksLikePltStub(const IRSB* in, DiEpoch epoch, uptr address,
                               const DebugInfo* object) {
    const HChar* name;
    if (object == nullptr || FunctionNameAt(epoch, address, &name)) return false;
    if (in->jumpkind != Ijk_Boring || in->next->tag != Iex_RdTmp) return false;
    Int instructions = 0;
    const IRExpr* target = nullptr;  // what the jump target is loaded from
    for (Int i = 0; i < in->stmts_used; ++i) {
      const IRStmt* st = in->stmts[i];
      if (st->tag == Ist_Exit) return false;
      instructions += st->tag == Ist_IMark;
      if (st->tag == Ist_WrTmp && st->Ist.WrTmp.tmp == in->next->Iex.RdTmp.tmp)
        target = st->Ist.WrTmp.data;
    }
    if (instructions > 2 || target == nullptr || target->tag != Iex_Load) return false;
    const IRExpr* slot = target->Iex.Load.addr;
    if (slot->tag != Iex_Const || slot->Iex.Const.con->tag != Ico_U64) return false;
    return InSection(slot->Iex.Const.con->Ico.U64, VG_(DebugInfo_get_got_avma)(object),
                     VG_(DebugInfo_get_got_size)(object)) ||
           InSection(slot->Iex.Const.con->Ico.U64, VG_(DebugInfo_get_gotplt_avma)(object),
                     VG_(DebugInfo_get_gotplt_size)(object));
  }

  // The element size of the rep-prefixed string instruction this block
  // runs one iteration of, or 0. Valgrind ends a block after a rep
  // instruction and loops back to its address, so every iteration after
  // the first enters a block that holds that instruction alone.
  static u32 RepStringIteration(const IRSB* in) {
    const IRStmt* mark = nullptr;
    for (Int i = 0; i < in->stmts_used; ++i) {
      if (in->stmts[i]->tag != Ist_IMark) continue;
      if (mark != nullptr) return 0;
      mark = in->stmts[i];
    }
    if (mark == nullptr) return 0;
    return RepStringElementBytes(reinterpret_cast<const u8*>(mark->Ist.IMark.addr),
                                 mark->Ist.IMark.len);
  }

  static bool InSection(uptr address, uptr start, SizeT size) {
    return address >= start && address - start < size;
  }

  IRSB* Run() {
    Int i = 0;
    for (; i < in_->stmts_used && in_->stmts[i]->tag != Ist_IMark; ++i)
      addStmtToIRSB(out_, in_->stmts[i]);  // preamble
    AddSuperblockEntry();
    for (; i < in_->stmts_used; ++i) InstrumentStatement(in_->stmts[i]);
    RecordExit(in_->jumpkind, in_->next);
    return out_;
  }

 private:
  // Calls the entry hook if the previous block left by an exit that may
  // call, return or unwind (g_last_exit not null), then counts the block.
  void AddSuperblockEntry() {
    IRTemp last_exit = newIRTemp(out_->tyenv, Ity_I64);
    addStmtToIRSB(out_, IRStmt_WrTmp(last_exit, IRExpr_Load(Iend_LE, Ity_I64, AddressOf(&g_last_exit))));
    IRTemp examine = newIRTemp(out_->tyenv, Ity_I1);
    addStmtToIRSB(out_, IRStmt_WrTmp(examine, IRExpr_Binop(Iop_CmpNE64, IRExpr_RdTmp(last_exit),
                                                           IRExpr_Const(IRConst_U64(0)))));
    IRTemp sp = newIRTemp(out_->tyenv, Ity_I64);
    addStmtToIRSB(out_, IRStmt_WrTmp(sp, IRExpr_Get(layout_->offset_SP, Ity_I64)));
    AddCall("aprof_superblock_entry", reinterpret_cast<void*>(&OnSuperblockEntry),
            mkIRExprVec_2(mkIRExpr_HWord(reinterpret_cast<HWord>(info_)), IRExpr_RdTmp(sp)),
            IRExpr_RdTmp(examine));
    if (rep_element_bytes_ != 0) AddRepIterationCost();
    else if (!count_instructions_) AddPendingCost(1);
  }

  // One iteration of a string instruction: its element's bytes are added
  // to g_rep_bytes, and each full unit of them (string_instruction.h) to
  // the cost, inline.
  void AddRepIterationCost() {
    const u32 shift = count_instructions_ ? kRepBytesPerInstructionLog2 : kRepBytesPerBlockLog2;
    IRTemp old_bytes = newIRTemp(out_->tyenv, Ity_I64);
    addStmtToIRSB(out_, IRStmt_WrTmp(old_bytes, IRExpr_Load(Iend_LE, Ity_I64, AddressOf(&g_rep_bytes))));
    IRTemp bytes = newIRTemp(out_->tyenv, Ity_I64);
    addStmtToIRSB(out_, IRStmt_WrTmp(bytes, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(old_bytes),
                                                         IRExpr_Const(IRConst_U64(rep_element_bytes_)))));
    IRTemp units = newIRTemp(out_->tyenv, Ity_I64);
    addStmtToIRSB(out_, IRStmt_WrTmp(units, IRExpr_Binop(Iop_Shr64, IRExpr_RdTmp(bytes),
                                                         IRExpr_Const(IRConst_U8(shift)))));
    AddPendingCostOf(IRExpr_RdTmp(units));
    IRTemp remainder = newIRTemp(out_->tyenv, Ity_I64);
    addStmtToIRSB(out_, IRStmt_WrTmp(remainder, IRExpr_Binop(Iop_And64, IRExpr_RdTmp(bytes),
                                                             IRExpr_Const(IRConst_U64((1ull << shift) - 1)))));
    addStmtToIRSB(out_, IRStmt_Store(Iend_LE, AddressOf(&g_rep_bytes), IRExpr_RdTmp(remainder)));
  }

  static IRExpr* AddressOf(const void* p) { return mkIRExpr_HWord(reinterpret_cast<HWord>(p)); }

  // g_pending_cost += amount, inline (a constant, or an atom of the block).
  void AddPendingCost(u32 amount) { AddPendingCostOf(IRExpr_Const(IRConst_U64(amount))); }
  void AddPendingCostOf(IRExpr* amount) {
    IRTemp old_cost = newIRTemp(out_->tyenv, Ity_I64);
    addStmtToIRSB(out_, IRStmt_WrTmp(old_cost, IRExpr_Load(Iend_LE, Ity_I64, AddressOf(&g_pending_cost))));
    IRTemp new_cost = newIRTemp(out_->tyenv, Ity_I64);
    addStmtToIRSB(out_, IRStmt_WrTmp(new_cost, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(old_cost), amount)));
    addStmtToIRSB(out_, IRStmt_Store(Iend_LE, AddressOf(&g_pending_cost), IRExpr_RdTmp(new_cost)));
  }

  void AddCall(const HChar* name, void* function, IRExpr** args, IRExpr* guard) {
    IRDirty* call = unsafeIRDirty_0_N(0, name, VG_(fnptr_to_fnentry)(function), args);
    if (guard) call->guard = guard;
    addStmtToIRSB(out_, IRStmt_Dirty(call));
  }

  // Emits a read or write event, unless an earlier unconditional access of
  // this superblock already made it a no-op: the global counter cannot move
  // inside a superblock (calls, switches and system calls end superblocks),
  // so re-reading a cell read or written at the same timestamp changes
  // nothing, and neither does re-writing a written cell. Flat IR is in SSA
  // form: equal address atoms are equal addresses.
  void AddAccess(bool write, IRExpr* address, Int size, IRExpr* guard = nullptr) {
    for (u32 i = 0; i < covered_count_; ++i) {
      const CoveredAccess& c = covered_[i];
      if (c.size >= size && (c.write || !write) && eqIRAtom(c.address, address)) return;
    }
    if (!guard && covered_count_ < kMaxCovered) covered_[covered_count_++] = {address, size, write};
    // An access wider than a cell spans several cells wherever it lies: its
    // hook skips the one-cell test that the others need.
    const bool wide = static_cast<u32>(size) > cell_bytes_;
    void (*const hook)(uptr, uptr) = write ? (wide ? wide_write_hook_ : write_hook_)
                                           : (wide ? &OnReadWide : &OnRead);
    AddCall(write ? (wide ? "aprof_write_wide" : "aprof_write") : (wide ? "aprof_read_wide" : "aprof_read"),
            reinterpret_cast<void*>(hook), mkIRExprVec_2(address, mkIRExpr_HWord(size)), guard);
  }

  Int SizeOf(IRExpr* e) { return sizeofIRType(typeOfIRExpr(out_->tyenv, e)); }

  // A 1-bit temporary holding "the compare-and-swap succeeded".
  IRExpr* CasSucceeded(const IRCAS* cas) {
    const IRType ty = typeOfIRExpr(out_->tyenv, cas->expdLo);
    IROp eq = ty == Ity_I8 ? Iop_CasCmpEQ8 : ty == Ity_I16 ? Iop_CasCmpEQ16
              : ty == Ity_I32 ? Iop_CasCmpEQ32 : Iop_CasCmpEQ64;
    IRTemp ok = newIRTemp(out_->tyenv, Ity_I1);
    addStmtToIRSB(out_, IRStmt_WrTmp(ok, IRExpr_Binop(eq, IRExpr_RdTmp(cas->oldLo), cas->expdLo)));
    if (cas->oldHi == IRTemp_INVALID) return IRExpr_RdTmp(ok);
    IRTemp ok_hi = newIRTemp(out_->tyenv, Ity_I1);
    addStmtToIRSB(out_, IRStmt_WrTmp(ok_hi, IRExpr_Binop(eq, IRExpr_RdTmp(cas->oldHi), cas->expdHi)));
    IRTemp both = newIRTemp(out_->tyenv, Ity_I1);
    addStmtToIRSB(out_, IRStmt_WrTmp(both, IRExpr_Binop(Iop_And1, IRExpr_RdTmp(ok), IRExpr_RdTmp(ok_hi))));
    return IRExpr_RdTmp(both);
  }

  void InstrumentStatement(IRStmt* st) {
    switch (st->tag) {
      case Ist_IMark:
        ++instructions_;
        break;
      case Ist_WrTmp:
        if (st->Ist.WrTmp.data->tag == Iex_Load) {
          const IRExpr* load = st->Ist.WrTmp.data;
          AddAccess(false, load->Iex.Load.addr, sizeofIRType(load->Iex.Load.ty));
        }
        break;
      case Ist_Store:
        AddAccess(true, st->Ist.Store.addr, SizeOf(st->Ist.Store.data));
        break;
      case Ist_LoadG: {
        const IRLoadG* lg = st->Ist.LoadG.details;
        IRType result, loaded;
        typeOfIRLoadGOp(lg->cvt, &result, &loaded);
        AddAccess(false, lg->addr, sizeofIRType(loaded), lg->guard);
        break;
      }
      case Ist_StoreG: {
        const IRStoreG* sg = st->Ist.StoreG.details;
        AddAccess(true, sg->addr, SizeOf(sg->data), sg->guard);
        break;
      }
      case Ist_CAS: {
        const IRCAS* cas = st->Ist.CAS.details;
        const Int size = SizeOf(cas->dataLo) * (cas->dataHi ? 2 : 1);
        AddAccess(false, cas->addr, size);
        addStmtToIRSB(out_, st);
        AddAccess(true, cas->addr, size, CasSucceeded(cas));
        return;
      }
      case Ist_LLSC: {
        const IRType ty = typeOfIRTemp(out_->tyenv, st->Ist.LLSC.result);
        if (st->Ist.LLSC.storedata == nullptr) {  // load-linked
          AddAccess(false, st->Ist.LLSC.addr, sizeofIRType(ty));
          break;
        }
        addStmtToIRSB(out_, st);  // store-conditional: a write if it succeeded
        AddAccess(true, st->Ist.LLSC.addr, SizeOf(st->Ist.LLSC.storedata),
                  IRExpr_RdTmp(st->Ist.LLSC.result));
        return;
      }
      case Ist_Dirty: {
        const IRDirty* d = st->Ist.Dirty.details;
        if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify) AddAccess(false, d->mAddr, d->mSize, d->guard);
        if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify) AddAccess(true, d->mAddr, d->mSize, d->guard);
        break;
      }
      case Ist_Exit:
        RecordExit(st->Ist.Exit.jk, IRExpr_Const(st->Ist.Exit.dst));
        break;
      default:
        break;
    }
    addStmtToIRSB(out_, st);
  }

  // Describes the next exit and, just before it, stores in g_last_exit what
  // the next block's entry must examine; with the instructions metric, also
  // adds the instructions run since the previous exit (a side exit not
  // taken leaves its share to the next exit, so the sum is always the
  // instructions run up to the exit taken). For a side exit this runs just
  // before the exit statement.
  void RecordExit(IRJumpKind jk, IRExpr* target) {
    ExitInfo& exit = info_->exits[exits_recorded_++];
    exit.kind = KindOfJump(jk);
    exit.from = info_;
    if (count_instructions_ && rep_element_bytes_ == 0 && instructions_ > instructions_counted_) {
      AddPendingCost(instructions_ - instructions_counted_);
      instructions_counted_ = instructions_;
    }
    const ExitInfo* examined = MayCallReturnOrUnwind(exit.kind, target) ? &exit : nullptr;
    addStmtToIRSB(out_, IRStmt_Store(Iend_LE, AddressOf(&g_last_exit),
                                     IRExpr_Const(IRConst_U64(reinterpret_cast<HWord>(examined)))));
  }

  // False only for a jump that the call tracker would not take for a call:
  // a direct jump within this block's object and section to an address
  // that is not a function entry (branches and loops). Skipping the entry
  // hook there also skips its unwinding check, which is safe: frames are
  // left by returns, by indirect jumps (longjmp, exception landing pads)
  // or by jumps to another function (tail calls), never by a plain branch.
  bool MayCallReturnOrUnwind(ExitKind kind, IRExpr* target) const {
    if (kind != ExitKind::kJump || target->tag != Iex_Const) return true;
    const Addr address = static_cast<Addr>(target->Iex.Const.con->Ico.U64);
    const HChar* name;
    return VG_(find_DebugInfo)(epoch_, address) != info_->object ||
           VG_(DebugInfo_sect_kind)(&name, address) != info_->section ||
           IsFunctionEntry(epoch_, address);
  }

  struct CoveredAccess {
    IRExpr* address;
    Int size;
    bool write;
  };
  static constexpr u32 kMaxCovered = 32;

  IRSB* const in_;
  const VexGuestLayout* const layout_;
  CoveredAccess covered_[kMaxCovered];
  u32 covered_count_ = 0;
  IRSB* const out_;
  const bool count_instructions_;
  const u32 cell_bytes_;  // --memory-resolution
  // OnWrite, or OnWriteTagged when sources are tracked: chosen here so that
  // the write hook of a run without sources does no extra work; the same
  // for accesses wider than a cell.
  void (*const write_hook_)(uptr, uptr);
  void (*const wide_write_hook_)(uptr, uptr);
  SuperblockInfo* info_;
  DiEpoch epoch_;
  // Nonzero: this block is one iteration of a rep-prefixed string
  // instruction of elements this large, charged by bytes, not by count.
  const u32 rep_element_bytes_;
  u32 instructions_ = 0;
  u32 instructions_counted_ = 0;
  u32 exits_recorded_ = 0;
};

}  // namespace

IRSB* Instrument(VgCallbackClosure* closure, IRSB* sb_in, const VexGuestLayout* layout,
                 const VexGuestExtents*, const VexArchInfo*, IRType guest_word_type,
                 IRType host_word_type) {
  if (guest_word_type != Ity_I64 || host_word_type != Ity_I64)
    VG_(tool_panic)("aprof-trms supports only amd64 guests and hosts");
  const Addr address = closure->readdr;
  return SuperblockInstrumenter(WithoutGoAsyncPreemption(sb_in, layout, address), layout, address).Run();
}

}  // namespace aprof
