// SPDX-License-Identifier: GPL-2.0-or-later
// Writing the report (report_writer.h): a temporary file renamed when
// complete.
//
// Copyright (C) 2026, the aprof-trms authors.
#include "report_writer.h"

#include "core/sort.h"
#include "core/text_escape.h"
#include "go_preemption.h"
#include "syscall_input.h"
#include "valgrind_headers.h"

namespace aprof {

namespace {

const HChar kCostCentre[] = "aprof.report";
// docs/report-format.md; 2: routine records give the object address and the
// source file and line; 3: call records (caller-to-callee edges) and the
// optional input-sources records; 4: the optional calling-context records;
// 5: `\xHH` escapes of bytes outside UTF-8 and of control characters, and
// the optional kernel-writes-unseen records; 6: the interval record (dumps
// of a running program).
constexpr u64 kReportFormatVersion = 6;

// Linux errno values that vki-linux.h lacks (asm-generic/errno.h).
constexpr UWord kENAMETOOLONG = 36;
constexpr UWord kEDQUOT = 122;

// Permissions of the report: rw for everyone, less the umask Valgrind
// started with (set by PrepareReport, before the client runs). The client may
// change its umask while it runs; the report follows the user's setting, not
// the program's.
UInt report_mode = 0644;

// The system's reason for an error number. VG_(strerror) knows the common
// ones only; a number it does not know is printed as such.
const char* ErrorText(UWord errnum) {
  if (errnum == kENAMETOOLONG) return "File name too long";
  if (errnum == kEDQUOT) return "Disk quota exceeded";
  if (errnum == VKI_ELOOP) return "Too many levels of symbolic links";
  const char* text = VG_(strerror)(errnum);
  if (VG_(strstr)(text, "unknown error") == nullptr) return text;
  static HChar unknown[32];
  VG_(snprintf)(unknown, sizeof unknown, "system error %lu", errnum);
  return unknown;
}

// Buffered writer of tab-separated records to a file descriptor; remembers
// the first write error.
class RecordWriter {
 public:
  explicit RecordWriter(Int fd) : fd_(fd) {}

  // The errno of the first failed write (0 if none).
  UWord error() const { return error_; }
  u64 records() const { return records_; }

  RecordWriter& Tag(const char* tag) {
    Raw(tag);
    return *this;
  }
  // Any bytes: escaped (core/text_escape.h) so that the line stays valid
  // UTF-8 without control characters.
  RecordWriter& Text(const char* s) {
    Put('\t');
    EscapeText(s, [this](char c) { Put(c); });
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
    u64 limbs[3] = {value.high, value.middle, value.low};
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
  // After a failed write the rest is dropped; error() says why. A short
  // write is continued: the next write gives the reason (EFBIG, ENOSPC).
  void Flush() {
    for (Int done = 0; error_ == 0 && done < used_;) {
      const Int written = VG_(write)(fd_, buffer_ + done, used_ - done);
      if (written > 0)
        done += written;
      else
        error_ = written < 0 ? static_cast<UWord>(-written) : VKI_ENOSPC;
    }
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
  UWord error_ = 0;
  Int used_ = 0;
  u64 records_ = 0;
  char buffer_[1 << 16];
};

struct TupleRow {
  ProfileKey key;
  InputSizeTuple tuple;  // a copy: a metric's tuple may be a merge of two
};

// What keys a thread's tuples: the routine, or the calling context (the
// key's routine field then holds a context id).
enum class TupleKey { kRoutine, kContext };

// A thread's tuples of one metric, sorted by key then input size.
void WriteTuples(RecordWriter& out, const ThreadRecord& thread, TupleKey keyed_by,
                 InputMetric metric, const char* tag) {
  InternalVector<TupleRow> rows;
  auto add = [&](const ProfileKey& key, const InputSizeTuple& tuple) { rows.push_back({key, tuple}); };
  if (keyed_by == TupleKey::kContext) thread.profile.context_table(metric).ForEach(add);
  else thread.profile.ForEachTuple(metric, add);
  HeapSort(rows.data(), rows.size(), [](const TupleRow& a, const TupleRow& b) {
    return a.key.routine != b.key.routine ? a.key.routine < b.key.routine
                                          : a.key.input_size < b.key.input_size;
  });
  for (const TupleRow& row : rows) {
    const InputSizeTuple& t = row.tuple;
    out.Tag(tag).Number(thread.serial).Number(row.key.routine).Number(row.key.input_size);
    out.Number(t.calls).Number(t.min_cost).Number(t.max_cost).Number(t.sum_cost);
    out.Wide(t.sum_cost_squared).Number(t.sum_self_cost);
    out.Number(t.sum_induced_by_threads).Number(t.sum_induced_by_kernel).End();
  }
}

// The tuples of one metric of every thread.
void WriteEveryThreadsTuples(RecordWriter& out, const Engine& engine, TupleKey keyed_by,
                             InputMetric metric, const char* tag) {
  for (size_t i = 0; i < engine.thread_record_count(); ++i)
    WriteTuples(out, engine.thread_record(i), keyed_by, metric, tag);
}

// --- Input sources ---------------------------------------------------------------

// One thread's induced reads of one consumer from one writer.
struct SourceRow {
  RoutineId consumer;
  Writer writer;
  u64 reads;
};

bool SourceRowBefore(const SourceRow& a, const SourceRow& b) {
  if (a.consumer != b.consumer) return a.consumer < b.consumer;
  if (a.writer.thread != b.writer.thread) return a.writer.thread < b.writer.thread;
  return a.writer.routine_or_syscall < b.writer.routine_or_syscall;
}

// Into rows: the thread's source counts of one kind (kernel or thread writers), sorted
// by consumer then writer, equal writers added up (after a fork two tags
// may name the same writer).
void CollectSourceRows(const Engine& engine, const ThreadRecord& thread, bool kernel,
                       InternalVector<SourceRow>& rows) {
  rows.clear();
  thread.profile.sources().ForEach([&](const SourceKey& key, u64 reads) {
    const Writer& writer = engine.writers()->writer(key.writer);
    if (writer.kernel == kernel) rows.push_back({key.consumer, writer, reads});
  });
  HeapSort(rows.data(), rows.size(), SourceRowBefore);
  size_t kept = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (kept > 0 && !SourceRowBefore(rows[kept - 1], rows[i]))
      rows[kept - 1].reads += rows[i].reads;
    else
      rows[kept++] = rows[i];
  }
  rows.resize(kept);
}

RecordWriter& RoutineField(RecordWriter& out, RoutineId routine) {
  return routine == kNoRoutine ? out.Text("-") : out.Number(routine);
}

void WriteSources(RecordWriter& out, const Engine& engine) {
  InternalVector<SourceRow> rows;
  for (size_t i = 0; i < engine.thread_record_count(); ++i) {
    const ThreadRecord& thread = engine.thread_record(i);
    CollectSourceRows(engine, thread, /*kernel=*/false, rows);
    for (const SourceRow& row : rows) {
      RoutineField(out.Tag("thread-source").Number(thread.serial), row.consumer);
      RoutineField(out.Number(row.writer.thread), row.writer.routine_or_syscall);
      out.Number(row.reads).End();
    }
  }
  for (size_t i = 0; i < engine.thread_record_count(); ++i) {
    const ThreadRecord& thread = engine.thread_record(i);
    CollectSourceRows(engine, thread, /*kernel=*/true, rows);
    for (const SourceRow& row : rows) {
      char buffer[32];
      RoutineField(out.Tag("kernel-source").Number(thread.serial), row.consumer);
      out.Text(SyscallName(row.writer.routine_or_syscall, buffer)).Number(row.reads).End();
    }
  }
}

// Routines named by source counts, as consumers or producers: they get a
// `routine` record even without a recorded activation.
void MarkRoutinesInSources(const Engine& engine, InternalVector<bool>& named) {
  if (!engine.writers()) return;
  auto mark = [&](RoutineId routine) {
    if (routine < named.size()) named[routine] = true;
  };
  for (size_t i = 0; i < engine.thread_record_count(); ++i) {
    engine.thread_record(i).profile.sources().ForEach([&](const SourceKey& key, u64) {
      mark(key.consumer);
      const Writer& writer = engine.writers()->writer(key.writer);
      if (!writer.kernel) mark(writer.routine_or_syscall);
    });
  }
}

// --- Calling contexts ----------------------------------------------------------

// The tree (every node: its routine gets a routine record), then per thread
// the activations by context and input size.
void WriteContexts(RecordWriter& out, const Engine& engine) {
  const ContextTree& tree = *engine.contexts();
  for (ContextId id = 1; id <= tree.size(); ++id) {
    const ContextNode& node = tree.node(id);
    out.Tag("context").Number(id).Number(node.parent).Number(node.routine).End();
  }
  WriteEveryThreadsTuples(out, engine, TupleKey::kContext, InputMetric::kTrms, "context-trms");
  WriteEveryThreadsTuples(out, engine, TupleKey::kContext, InputMetric::kRms, "context-rms");
}

void MarkRoutinesInContexts(const Engine& engine, InternalVector<bool>& named) {
  if (!engine.contexts()) return;
  const ContextTree& tree = *engine.contexts();
  for (ContextId id = 1; id <= tree.size(); ++id) named[tree.node(id).routine] = true;
}

struct EdgeRef {
  CallEdgeKey key;
  CallEdgeTotals totals;
};

void WriteCallEdges(RecordWriter& out, const ThreadRecord& thread) {
  InternalVector<EdgeRef> rows;
  thread.profile.edges().ForEach(
      [&](const CallEdgeKey& key, const CallEdgeTotals& totals) { rows.push_back({key, totals}); });
  HeapSort(rows.data(), rows.size(), [](const EdgeRef& a, const EdgeRef& b) {
    return a.key.caller != b.key.caller ? a.key.caller < b.key.caller : a.key.callee < b.key.callee;
  });
  for (const EdgeRef& row : rows) {
    out.Tag("call").Number(thread.serial).Number(row.key.caller).Number(row.key.callee);
    out.Number(row.totals.calls).Number(row.totals.inclusive_cost).End();
  }
}

// Per routine id, whether it is reported: some thread recorded an
// activation of it or a call from it (a caller whose own activations
// completed while collection was off).
void FindReportedRoutines(const Engine& engine, InternalVector<bool>& reported) {
  for (size_t i = 0; i < engine.thread_record_count(); ++i) {
    const ThreadProfile& profile = engine.thread_record(i).profile;
    for (RoutineId id = 0; id < profile.routines().size(); ++id)
      if (profile.routines()[id].calls > 0) reported[id] = true;
    profile.edges().ForEach(
        [&](const CallEdgeKey& key, const CallEdgeTotals&) { reported[key.caller] = true; });
  }
}

void WriteRecords(RecordWriter& out, const ReportContext& c) {
  const Engine& engine = *c.engine;
  out.Tag("aprof-trms-report").Number(kReportFormatVersion).End();
  out.Tag("tool").Text("aprof-trms").Text(c.tool_version).Text(c.valgrind_version).End();

  out.Tag("command").Text(VG_(args_the_exename) ? VG_(args_the_exename) : "???");
  for (Word i = 0; i < VG_(sizeXA)(VG_(args_for_client)); ++i)
    out.Text(*static_cast<HChar**>(VG_(indexXA)(VG_(args_for_client), i)));
  out.End();

  out.Tag("pid").Number(VG_(getpid)()).Number(VG_(getppid)()).End();
  const ReportInterval& interval = c.interval;
  out.Tag("interval").Number(interval.dump).Number(interval.start_ms).Number(interval.end_ms);
  out.Number(interval.zeroes).Text(interval.reason).End();
  out.Tag("cost-metric").Text(CostMetricName(c.options->cost_metric)).End();
  out.Tag("memory-resolution").Number(c.options->memory_resolution).End();
  out.Tag("syscall-input").Text(SyscallInputName(c.options->syscall_input)).End();
  // Optional records (since format version 5), one per mechanism seen.
  for (int m = 0; m < kKernelWriteMechanismCount; ++m) {
    const auto mechanism = static_cast<KernelWriteMechanism>(m);
    if (KernelWritesUnseen(mechanism))
      out.Tag("kernel-writes-unseen").Text(KernelWriteMechanismName(mechanism)).End();
  }
  // Optional record, written only when not the default (since format version 1).
  if (!c.options->track_trms) out.Tag("trms-tracking").Text("no").End();
  out.Tag("shadow-peak-bytes").Number(engine.shadow_peak_bytes()).End();
  if (c.options->input_sources) out.Tag("input-sources").Text("yes").End();
  if (engine.contexts()) out.Tag("contexts").Number(engine.contexts()->depth_limit()).End();
  // Go programs only: whether the runtime could preempt goroutines by signals.
  if (GoThreadKillSeen())
    out.Tag("go-async-preemption").Text(c.options->go_async_preemption ? "on" : "off").End();

  for (size_t i = 0; i < engine.thread_record_count(); ++i) {
    const ThreadRecord& thread = engine.thread_record(i);
    out.Tag("thread").Number(thread.serial).Number(thread.tid).Number(thread.cost).End();
  }

  // Routines with a recorded activation or call in some thread, or named by
  // input sources.
  InternalVector<bool> reported;
  reported.resize(c.routines->size());
  FindReportedRoutines(engine, reported);
  MarkRoutinesInSources(engine, reported);
  MarkRoutinesInContexts(engine, reported);
  for (RoutineId id = 0; id < c.routines->size(); ++id) {
    if (!reported[id]) continue;
    const RoutineInfo& r = c.routines->info(id);
    out.Tag("routine").Number(id).Address(r.entry).Text(r.object).Text(r.name).Text(r.mangled);
    out.Address(r.object_address).Text(r.file).Number(r.line).End();
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
  WriteEveryThreadsTuples(out, engine, TupleKey::kRoutine, InputMetric::kTrms, "trms");
  WriteEveryThreadsTuples(out, engine, TupleKey::kRoutine, InputMetric::kRms, "rms");
  for (size_t i = 0; i < engine.thread_record_count(); ++i)
    WriteCallEdges(out, engine.thread_record(i));
  if (engine.writers()) WriteSources(out, engine);
  if (engine.contexts()) WriteContexts(out, engine);

  const u64 records = out.records();
  out.Tag("end").Number(records).End();
}

// --- The report file ----------------------------------------------------------
// Written where others may write (a shared directory, a CI workspace): the
// temporary file is a new file under a name no one can predict, never an
// existing file, a link or a FIFO; what is at the final name is replaced by
// rename(2) only if it is a regular file or a symbolic link (the link
// itself, its target untouched).

// Linux values that vki lacks (x86-64, asm-generic/fcntl.h).
constexpr UInt kONoFollow = 0400000;

// The temporary file's name: the report's name, ".tmp", then this many
// random letters and digits (36^8: about 41 bits).
const char kTemporaryTag[] = ".tmp";
constexpr SizeT kRandomLength = 8;
constexpr SizeT kSuffixLength = sizeof kTemporaryTag - 1 + kRandomLength;
// New names tried while the name made exists (O_EXCL): only someone
// creating files at the same names in a loop fails all of them.
constexpr int kCreateAttempts = 100;

// Random bytes from getrandom(2); without it (Linux before 3.17) from the
// clock and pid: O_EXCL keeps a guessable name safe, a guess only costs a
// retry.
void RandomBytes(UChar* bytes, SizeT count) {
  const SysRes res = VG_(do_syscall)(__NR_getrandom, reinterpret_cast<UWord>(bytes), count, 0, 0,
                                     0, 0, 0, 0);
  if (!sr_isError(res) && sr_Res(res) == count) return;
  static UInt seed;
  if (seed == 0) seed = VG_(read_millisecond_timer)() ^ (static_cast<UInt>(VG_(getpid)()) << 12);
  for (SizeT i = 0; i < count; ++i) bytes[i] = static_cast<UChar>(VG_(random)(&seed) >> 8);
}

// "<path>.tmp<8 random letters and digits>", heap-allocated.
char* NewTemporaryPath(const char* path) {
  const SizeT length = VG_(strlen)(path);
  char* tmp = static_cast<char*>(VG_(malloc)(kCostCentre, length + kSuffixLength + 1));
  VG_(strcpy)(tmp, path);
  VG_(strcpy)(tmp + length, kTemporaryTag);
  char* random = tmp + length + sizeof kTemporaryTag - 1;
  UChar bytes[kRandomLength];
  RandomBytes(bytes, kRandomLength);
  const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  for (SizeT i = 0; i < kRandomLength; ++i) random[i] = alphabet[bytes[i] % (sizeof alphabet - 1)];
  random[kRandomLength] = '\0';
  return tmp;
}

// Creates the new file `path` with the report's permissions; returns the
// descriptor, or minus the errno (EEXIST if anything, a link included, has
// that name: O_EXCL never opens an existing file, so never a FIFO or device).
Int CreateNewFile(const char* path) {
  const SysRes res =
      VG_(open)(path, VKI_O_CREAT | VKI_O_EXCL | kONoFollow | VKI_O_WRONLY, report_mode);
  if (sr_isError(res)) return -static_cast<Int>(sr_Err(res));
  const Int fd = static_cast<Int>(sr_Res(res));
  // open() applied the client's current umask: set the mode we chose.
  VG_(do_syscall)(__NR_fchmod, static_cast<UWord>(fd), report_mode, 0, 0, 0, 0, 0, 0);
  return fd;
}

// A new temporary file beside the report `path`: its descriptor (or minus
// the errno) and its name (heap-allocated, set in both cases).
struct TemporaryFile {
  Int fd;
  char* path;
};

TemporaryFile CreateTemporaryFile(const char* path) {
  TemporaryFile file{-static_cast<Int>(VKI_EEXIST), nullptr};
  for (int attempt = 0; attempt < kCreateAttempts && file.fd == -static_cast<Int>(VKI_EEXIST);
       ++attempt) {
    if (file.path) VG_(free)(file.path);
    file.path = NewTemporaryPath(path);
    file.fd = CreateNewFile(file.path);
  }
  return file;
}

// rename(2) with its errno (VG_(rename) returns only -1); 0 on success.
UWord RenameFile(const char* from, const char* to) {
  const SysRes res = VG_(do_syscall)(__NR_rename, reinterpret_cast<UWord>(from),
                                     reinterpret_cast<UWord>(to), 0, 0, 0, 0, 0, 0);
  return sr_isError(res) ? sr_Err(res) : 0;
}

// Why the report must not replace what is at `path`, or null. lstat, not
// stat: a symbolic link is replaced by the rename, whatever it points to.
// A directory, FIFO, device or socket is refused: the rename would take
// its name from whoever uses it (as root, /dev/null).
const char* UnusablePath(const char* path) {
  struct vki_stat status;
  const SysRes res = VG_(do_syscall)(__NR_lstat, reinterpret_cast<UWord>(path),
                                     reinterpret_cast<UWord>(&status), 0, 0, 0, 0, 0, 0);
  if (sr_isError(res)) return nullptr;  // nothing there yet: creating the file will tell
  const UInt mode = static_cast<UInt>(status.st_mode);
  if (VKI_S_ISREG(mode) || VKI_S_ISLNK(mode)) return nullptr;
  if (VKI_S_ISDIR(mode)) return "it is a directory";
  if (VKI_S_ISFIFO(mode)) return "it exists and is a FIFO (named pipe), not a regular file";
  if (VKI_S_ISCHR(mode) || VKI_S_ISBLK(mode))
    return "it exists and is a device, not a regular file";
  return "it exists and is a socket, not a regular file";
}

// Where the messages about one file go, and what the file is ("report",
// "dump").
struct Teller {
  Printer print;
  const char* what;
};

// Prints why the temporary file beside the report `path` could not be made.
void TellCreationFailed(const Teller& tell, const char* path, const TemporaryFile& file) {
  const UWord error = static_cast<UWord>(-file.fd);
  if (error == kENAMETOOLONG)
    tell.print("aprof-trms: cannot write the %s %s: the name is too long for the system "
               "once the %lu-character suffix of the temporary file %s is added\n", tell.what,
               path, kSuffixLength, file.path);
  else
    tell.print("aprof-trms: cannot write the %s %s (creating %s: %s)\n", tell.what, path,
               file.path, ErrorText(error));
}

void RecordStartUmask() {
  const UWord mask = sr_Res(VG_(do_syscall)(__NR_umask, 0, 0, 0, 0, 0, 0, 0, 0));
  VG_(do_syscall)(__NR_umask, mask, 0, 0, 0, 0, 0, 0, 0);
  report_mode = 0666 & ~static_cast<UInt>(mask);
}

// Set in the child of a fork (ReportAfterFork).
bool in_forked_child = false;

// Whether an --aprof-out-file name expands %p (a "%%" is a literal '%').
bool NamesThePid(const char* name) {
  for (const char* p = name; *p != '\0'; ++p) {
    if (*p != '%') continue;
    if (p[1] == 'p') return true;
    if (p[1] != '\0') ++p;
  }
  return false;
}

// `path` with ".<pid of this process>" appended; frees `path`.
char* WithPidSuffix(char* path) {
  const SizeT size = VG_(strlen)(path) + 16;
  char* named = static_cast<char*>(VG_(malloc)(kCostCentre, size));
  VG_(snprintf)(named, size, "%s.%d", path, VG_(getpid)());
  VG_(free)(path);
  return named;
}

}  // namespace

char* ReportPath() {
  char* path = VG_(expand_file_name)("--aprof-out-file", TheOptions().out_file);
  if (in_forked_child && !NamesThePid(TheOptions().out_file)) return WithPidSuffix(path);
  return path;
}

void ReportAfterFork() {
  in_forked_child = true;
  if (NamesThePid(TheOptions().out_file)) return;
  char* path = ReportPath();
  VG_(umsg)("aprof-trms: --aprof-out-file has no %%p: the report of the forked child %d goes "
            "to %s, not over its parent's\n", VG_(getpid)(), path);
  VG_(free)(path);
}

bool PrepareReport() {
  RecordStartUmask();
  char* path = ReportPath();
  bool ok = false;
  if (const char* problem = UnusablePath(path)) {
    VG_(fmsg)("aprof-trms: cannot write the report %s: %s\n", path, problem);
  } else {
    // The probe: the directory accepts a new file (removed at once).
    const TemporaryFile file = CreateTemporaryFile(path);
    ok = file.fd >= 0;
    if (ok) {
      VG_(close)(file.fd);
      VG_(unlink)(file.path);
    } else {
      TellCreationFailed({VG_(fmsg), "report"}, path, file);
    }
    VG_(free)(file.path);
  }
  VG_(free)(path);
  return ok;
}

// Writes the records into the new file `file`, then renames it to `path`;
// removes it on failure.
bool WriteAndRename(const ReportContext& context, const TemporaryFile& file, const char* path,
                    const Teller& tell) {
  RecordWriter* out = New<RecordWriter>(file.fd);
  WriteRecords(*out, context);
  out->Flush();
  const UWord write_error = out->error();
  Delete(out);
  VG_(close)(file.fd);
  UWord rename_error = 0;
  if (write_error != 0)
    tell.print("aprof-trms: cannot write the %s %s (writing %s: %s)\n", tell.what, path,
               file.path, ErrorText(write_error));
  else if ((rename_error = RenameFile(file.path, path)) != 0)
    tell.print("aprof-trms: cannot write the %s %s (renaming %s to it: %s)\n", tell.what, path,
               file.path, ErrorText(rename_error));
  const bool ok = write_error == 0 && rename_error == 0;
  if (!ok) VG_(unlink)(file.path);
  return ok;
}

// Writes the report or a dump to `path`, through a temporary file.
bool WriteFileAt(const ReportContext& context, const char* path, const Teller& tell) {
  // Checked again: a FIFO or device may have been put there while the
  // program ran.
  if (const char* problem = UnusablePath(path)) {
    tell.print("aprof-trms: cannot write the %s %s: %s\n", tell.what, path, problem);
    return false;
  }
  const TemporaryFile file = CreateTemporaryFile(path);
  bool ok = false;
  if (file.fd < 0)
    TellCreationFailed(tell, path, file);
  else
    ok = WriteAndRename(context, file, path, tell);
  VG_(free)(file.path);
  return ok;
}

bool WriteReport(const ReportContext& context) {
  char* path = ReportPath();
  const bool ok = WriteFileAt(context, path, {VG_(umsg), "report"});
  if (ok && VG_(clo_verbosity) > 0) VG_(umsg)("aprof-trms: report written to %s\n", path);
  VG_(free)(path);
  return ok;
}

bool WriteDump(const ReportContext& context, Printer print) {
  char* report = ReportPath();
  const SizeT size = VG_(strlen)(report) + 24;
  char* path = static_cast<char*>(VG_(malloc)(kCostCentre, size));
  const auto number = static_cast<unsigned long long>(context.interval.dump);
  VG_(snprintf)(path, size, "%s.%llu", report, number);
  VG_(free)(report);
  const bool ok = WriteFileAt(context, path, {print, "dump"});
  // Asked for by a monitor command: always answered; else like the report.
  if (ok && (print == VG_(gdb_printf) || VG_(clo_verbosity) > 0))
    print("aprof-trms: dump %llu written to %s\n", number, path);
  VG_(free)(path);
  return ok;
}

}  // namespace aprof
