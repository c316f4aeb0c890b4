// Copyright (C) 2026, the aprof-trms authors.
// SPDX-License-Identifier: GPL-2.0-or-later
#include "instrument.h"

#include "runtime_hooks.h"

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
      : in_(in), layout_(layout), out_(deepCopyIRSBExceptStmts(in)) {
    u32 side_exits = 0;
    for (Int i = 0; i < in->stmts_used; ++i) side_exits += in->stmts[i]->tag == Ist_Exit;
    const SizeT bytes = sizeof(SuperblockInfo) + side_exits * sizeof(ExitInfo);
    info_ = static_cast<SuperblockInfo*>(VG_(calloc)("aprof.superblocks", 1, bytes));
    info_->address = address;
    info_->exit_count = side_exits + 1;
    const DiEpoch epoch = VG_(current_DiEpoch)();
    info_->object = VG_(find_DebugInfo)(epoch, address);
    const HChar* ignored;
    info_->section = VG_(DebugInfo_sect_kind)(&ignored, address);
    info_->is_function_entry = VG_(get_fnname_if_entry)(epoch, address, &ignored);
    info_->is_plt_stub = info_->section == Vg_SectPLT || LooksLikePltStub(in, epoch, address);
  }

  // Stubs in .plt.got and .plt.sec, which Valgrind does not classify as
  // PLT: no symbol, at most two instructions (endbr64; jmp *GOT(%rip)), an
  // indirect jump.
  static bool LooksLikePltStub(const IRSB* in, DiEpoch epoch, uptr address) {
    const HChar* name;
    if (VG_(get_fnname)(epoch, address, &name)) return false;
    if (in->jumpkind != Ijk_Boring || in->next->tag == Iex_Const) return false;
    Int instructions = 0;
    for (Int i = 0; i < in->stmts_used; ++i) {
      const IRStmt* st = in->stmts[i];
      if (st->tag == Ist_Exit) return false;
      instructions += st->tag == Ist_IMark;
    }
    return instructions <= 2;
  }

  IRSB* Run() {
    Int i = 0;
    for (; i < in_->stmts_used && in_->stmts[i]->tag != Ist_IMark; ++i)
      addStmtToIRSB(out_, in_->stmts[i]);  // preamble
    AddSuperblockEntryCall();
    for (; i < in_->stmts_used; ++i) InstrumentStatement(in_->stmts[i]);
    RecordExit(in_->jumpkind);
    return out_;
  }

 private:
  void AddSuperblockEntryCall() {
    IRTemp sp = newIRTemp(out_->tyenv, Ity_I64);
    addStmtToIRSB(out_, IRStmt_WrTmp(sp, IRExpr_Get(layout_->offset_SP, Ity_I64)));
    AddCall("aprof_superblock_entry", reinterpret_cast<void*>(&OnSuperblockEntry),
            mkIRExprVec_2(mkIRExpr_HWord(reinterpret_cast<HWord>(info_)), IRExpr_RdTmp(sp)),
            nullptr);
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
    AddCall(write ? "aprof_write" : "aprof_read",
            write ? reinterpret_cast<void*>(&OnWrite) : reinterpret_cast<void*>(&OnRead),
            mkIRExprVec_2(address, mkIRExpr_HWord(size)), guard);
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
        RecordExit(st->Ist.Exit.jk);
        break;
      default:
        break;
    }
    addStmtToIRSB(out_, st);
  }

  // Describes the next exit and stores its index for the next block's entry
  // call; for a side exit this runs just before the exit statement.
  void RecordExit(IRJumpKind jk) {
    ExitInfo& exit = info_->exits[exits_recorded_];
    exit.kind = KindOfJump(jk);
    exit.instructions = instructions_;
    addStmtToIRSB(out_, IRStmt_Store(Iend_LE, mkIRExpr_HWord(reinterpret_cast<HWord>(&g_last_exit)),
                                     IRExpr_Const(IRConst_U32(exits_recorded_))));
    ++exits_recorded_;
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
  SuperblockInfo* info_;
  u32 instructions_ = 0;
  u32 exits_recorded_ = 0;
};

}  // namespace

IRSB* Instrument(VgCallbackClosure* closure, IRSB* sb_in, const VexGuestLayout* layout,
                 const VexGuestExtents*, const VexArchInfo*, IRType guest_word_type,
                 IRType host_word_type) {
  if (guest_word_type != Ity_I64 || host_word_type != Ity_I64)
    VG_(tool_panic)("aprof-trms supports only amd64 guests and hosts");
  return SuperblockInstrumenter(sb_in, layout, closure->readdr).Run();
}

}  // namespace aprof
