// Copyright (C) 2026, the aprof-trms authors.
// SPDX-License-Identifier: GPL-2.0-or-later
#include "report_writer.h"

#include "core/sort.h"
#include "valgrind_headers.h"

namespace aprof {

namespace {

const HChar kCostCentre[] = "aprof.report";
constexpr int kFileMode = VKI_S_IRUSR | VKI_S_IWUSR | VKI_S_IRGRP | VKI_S_IWGRP | VKI_S_IROTH;

// Buffered writer of tab-separated records to a file descriptor; remembers
// the first write error.
class RecordWriter {
 public:
  explicit RecordWriter(Int fd) : fd_(fd) {}

  bool ok() const { return ok_; }
  u64 records() const { return records_; }

  RecordWriter& Tag(const char* tag) {
    Raw(tag);
    return *this;
  }
  RecordWriter& Text(const char* s) {
    Put('\t');
    for (; *s; ++s) {
      switch (*s) {
        case '\\': Raw("\\\\"); break;
        case '\t': Raw("\\t"); break;
        case '\n': Raw("\\n"); break;
        case '\r': Raw("\\r"); break;
        default: Put(*s);
      }
    }
    return *this;
  }
  RecordWriter& Number(u64 value) {
    HChar digits[24];
    VG_(snprintf)(digits, sizeof digits, "\t%llu", static_cast<unsigned long long>(value));
    Raw(digits);
    return *this;
  }
  RecordWriter& Address(uptr value) {
    HChar digits[24];
    VG_(snprintf)(digits, sizeof digits, "\t0x%lx", value);
    Raw(digits);
    return *this;
  }
  // A 192-bit value in decimal.
  RecordWriter& Wide(const WideSum& value) {
    u64 limbs[3] = {value.high, static_cast<u64>(value.low >> 64), static_cast<u64>(value.low)};
    constexpr u64 kChunk = 10000000000000000000ULL;  // 10^19
    u64 chunks[4];  // 192 bits < 10^58: at most 4 chunks of 19 digits
    int count = 0;
    do {
      u64 remainder = 0;
      for (u64& limb : limbs) {
        const u128 current = (static_cast<u128>(remainder) << 64) | limb;
        limb = static_cast<u64>(current / kChunk);
        remainder = static_cast<u64>(current % kChunk);
      }
      chunks[count++] = remainder;
    } while ((limbs[0] | limbs[1] | limbs[2]) && count < 4);
    HChar digits[24];
    VG_(snprintf)(digits, sizeof digits, "\t%llu", static_cast<unsigned long long>(chunks[count - 1]));
    Raw(digits);
    while (--count > 0) {
      VG_(snprintf)(digits, sizeof digits, "%019llu", static_cast<unsigned long long>(chunks[count - 1]));
      Raw(digits);
    }
    return *this;
  }
  void End() {
    Put('\n');
    ++records_;
  }
  // After a failed write the rest is dropped; ok() reports the failure.
  void Flush() {
    if (ok_ && used_ > 0 && VG_(write)(fd_, buffer_, used_) != used_) ok_ = false;
    used_ = 0;
  }

 private:
  void Raw(const char* s) {
    for (; *s; ++s) Put(*s);
  }
  void Put(char c) {
    if (used_ == sizeof buffer_) Flush();
    buffer_[used_++] = c;
  }

  const Int fd_;
  bool ok_ = true;
  Int used_ = 0;
  u64 records_ = 0;
  char buffer_[1 << 16];
};

struct TupleRef {
  ProfileKey key;
  const InputSizeTuple* tuple;
};

void WriteTuples(RecordWriter& out, const ThreadRecord& thread, InputMetric metric, const char* tag) {
  const InputSizeTable& table = thread.profile.table(metric);
  InternalVector<TupleRef> rows;
  table.ForEach([&](const ProfileKey& key, const InputSizeTuple& tuple) { rows.push_back({key, &tuple}); });
  HeapSort(rows.data(), rows.size(), [](const TupleRef& a, const TupleRef& b) {
    return a.key.routine != b.key.routine ? a.key.routine < b.key.routine
                                          : a.key.input_size < b.key.input_size;
  });
  for (const TupleRef& row : rows) {
    const InputSizeTuple& t = *row.tuple;
    out.Tag(tag).Number(thread.serial).Number(row.key.routine).Number(row.key.input_size);
    out.Number(t.calls).Number(t.min_cost).Number(t.max_cost).Number(t.sum_cost);
    out.Wide(t.sum_cost_squared).Number(t.sum_self_cost);
    out.Number(t.sum_induced_by_threads).Number(t.sum_induced_by_kernel).End();
  }
}

void WriteRecords(RecordWriter& out, const ReportContext& c) {
  const Engine& engine = *c.engine;
  out.Tag("aprof-trms-report").Number(1).End();
  out.Tag("tool").Text("aprof-trms").Text(c.tool_version).Text(c.valgrind_version).End();

  out.Tag("command").Text(VG_(args_the_exename) ? VG_(args_the_exename) : "???");
  for (Word i = 0; i < VG_(sizeXA)(VG_(args_for_client)); ++i)
    out.Text(*static_cast<HChar**>(VG_(indexXA)(VG_(args_for_client), i)));
  out.End();

  out.Tag("pid").Number(VG_(getpid)()).Number(VG_(getppid)()).End();
  out.Tag("cost-metric").Text(CostMetricName(c.options->cost_metric)).End();
  out.Tag("memory-resolution").Number(c.options->memory_resolution).End();
  out.Tag("syscall-input").Text(SyscallInputName(c.options->syscall_input)).End();
  // Optional record, written only when not the default (format version 1).
  if (!c.options->track_trms) out.Tag("trms-tracking").Text("no").End();
  out.Tag("shadow-peak-bytes").Number(engine.shadow_peak_bytes()).End();

  for (size_t i = 0; i < engine.thread_record_count(); ++i) {
    const ThreadRecord& thread = engine.thread_record(i);
    out.Tag("thread").Number(thread.serial).Number(thread.tid).Number(thread.cost).End();
  }

  // Routines with at least one recorded activation in some thread.
  for (RoutineId id = 0; id < c.routines->size(); ++id) {
    bool recorded = false;
    for (size_t i = 0; i < engine.thread_record_count() && !recorded; ++i) {
      const InternalVector<RoutineTotals>& totals = engine.thread_record(i).profile.routines();
      recorded = id < totals.size() && totals[id].calls > 0;
    }
    if (!recorded) continue;
    const RoutineInfo& r = c.routines->info(id);
    out.Tag("routine").Number(id).Address(r.entry).Text(r.object).Text(r.name).Text(r.mangled).End();
  }

  for (size_t i = 0; i < engine.thread_record_count(); ++i) {
    const ThreadRecord& thread = engine.thread_record(i);
    const InternalVector<RoutineTotals>& totals = thread.profile.routines();
    for (RoutineId id = 0; id < totals.size(); ++id) {
      if (totals[id].calls == 0) continue;
      out.Tag("totals").Number(thread.serial).Number(id).Number(totals[id].calls);
      out.Number(totals[id].self_cost).Number(totals[id].cumulative_cost).End();
    }
  }
  for (size_t i = 0; i < engine.thread_record_count(); ++i)
    WriteTuples(out, engine.thread_record(i), InputMetric::kTrms, "trms");
  for (size_t i = 0; i < engine.thread_record_count(); ++i)
    WriteTuples(out, engine.thread_record(i), InputMetric::kRms, "rms");

  const u64 records = out.records();
  out.Tag("end").Number(records).End();
}

// "<path>.tmp", heap-allocated.
char* TemporaryPath(const char* path) {
  const SizeT length = VG_(strlen)(path);
  char* tmp = static_cast<char*>(VG_(malloc)(kCostCentre, length + 5));
  VG_(strcpy)(tmp, path);
  VG_(strcpy)(tmp + length, ".tmp");
  return tmp;
}

Int CreateFile(const char* path) {
  SysRes res = VG_(open)(path, VKI_O_CREAT | VKI_O_WRONLY | VKI_O_TRUNC, kFileMode);
  return sr_isError(res) ? -static_cast<Int>(sr_Err(res)) : static_cast<Int>(sr_Res(res));
}

}  // namespace

char* ReportPath() { return VG_(expand_file_name)("--aprof-out-file", TheOptions().out_file); }

bool CheckReportPathWritable() {
  char* path = ReportPath();
  char* tmp = TemporaryPath(path);
  const Int fd = CreateFile(tmp);
  if (fd < 0) {
    VG_(fmsg)("aprof-trms: cannot write the report %s (creating %s: %s)\n", path, tmp,
              VG_(strerror)(-fd));
  } else {
    VG_(close)(fd);
    VG_(unlink)(tmp);
  }
  VG_(free)(tmp);
  VG_(free)(path);
  return fd >= 0;
}

bool WriteReport(const ReportContext& context) {
  char* path = ReportPath();
  char* tmp = TemporaryPath(path);
  bool ok = false;
  const Int fd = CreateFile(tmp);
  if (fd < 0) {
    VG_(umsg)("aprof-trms: cannot write the report %s (creating %s: %s)\n", path, tmp,
              VG_(strerror)(-fd));
  } else {
    RecordWriter* out = New<RecordWriter>(fd);
    WriteRecords(*out, context);
    out->Flush();
    ok = out->ok();
    Delete(out);
    VG_(close)(fd);
    if (!ok) VG_(umsg)("aprof-trms: error while writing the report file %s\n", tmp);
    if (ok && VG_(rename)(tmp, path) != 0) {
      VG_(umsg)("aprof-trms: cannot rename %s to %s\n", tmp, path);
      ok = false;
    }
    if (!ok) VG_(unlink)(tmp);
  }
  if (ok && VG_(clo_verbosity) > 0) VG_(umsg)("aprof-trms: report written to %s\n", path);
  VG_(free)(tmp);
  VG_(free)(path);
  return ok;
}

}  // namespace aprof
