// SPDX-License-Identifier: GPL-2.0-or-later
// The tool's command-line options (options.h): parsing, validation, --help.
//
// Copyright (C) 2026, the aprof-trms authors.
#include "options.h"

#include "valgrind_headers.h"

namespace aprof {

namespace {

// Zero-initialised storage: global constructors never run inside the tool,
// so the options are constructed on first use.
alignas(Options) char options_storage[sizeof(Options)];
bool options_constructed = false;

// Reports a bad value; while the command line is parsed this stops Valgrind
// with exit status 1, like the core's own option checks.
void BadOption(const char* arg, const char* expected) {
  VG_(fmsg_bad_option)(arg, "expected %s\n", expected);
}

// A routine name pattern of a repeatable option (--skip-routine,
// --collect-inside, --dump-before, --dump-after): not empty, kept in order.
void AddPattern(const char* arg, const char* value, InternalVector<const char*>& patterns) {
  if (value[0] == '\0') BadOption(arg, "a routine name pattern");
  patterns.push_back(value);
}

// A plain decimal number: digits only, no sign, blank or suffix, and no
// leading zero (elsewhere "08" could mean octal; "4k" or " 4" a typo).
// Stops Valgrind with a message unless lo <= value <= hi.
u64 ParseNumber(const char* arg, const char* value, u64 lo, u64 hi, const char* expected) {
  u64 n = 0;
  bool ok = value[0] >= '0' && value[0] <= '9' && !(value[0] == '0' && value[1] != '\0');
  for (const char* p = value; ok && *p; ++p) {
    ok = *p >= '0' && *p <= '9' && n <= (hi - static_cast<u64>(*p - '0')) / 10;
    n = n * 10 + static_cast<u64>(*p - '0');
  }
  if (!ok || n < lo) BadOption(arg, expected);
  return n;
}

// What --help shows of an option: its row of options.def without the
// manual's details.
struct OptionText {
  const char* name;
  const char* values;
  const char* default_value;  // "": none shown
  const char* help;
};

#define APROF_OPTION(name, values, default_value, help, details) {name, values, default_value, help},
#define APROF_DEBUG_OPTION(name, values, default_value, help, details)
const OptionText kOptionTexts[] = {
#include "options.def"
};
#undef APROF_OPTION
#undef APROF_DEBUG_OPTION
#define APROF_OPTION(name, values, default_value, help, details)
#define APROF_DEBUG_OPTION(name, values, default_value, help, details) \
  {name, values, default_value, help},
const OptionText kDebugOptionTexts[] = {
#include "options.def"
};
#undef APROF_OPTION
#undef APROF_DEBUG_OPTION

// The layout of Valgrind's own --help: the option indented by 4, its text
// from column 36, lines of at most 79 characters.
constexpr SizeT kOptionIndent = 4;
constexpr SizeT kTextColumn = 36;
constexpr SizeT kLineWidth = 79;

void PrintSpaces(SizeT count) {
  for (SizeT i = 0; i < count; ++i) VG_(printf)(" ");
}

// Prints `text` word by word from `column` on, starting a new line at
// kTextColumn before a word that would pass kLineWidth; returns the column.
SizeT PrintWords(const char* text, SizeT column) {
  for (const char* p = text; *p != '\0';) {
    while (*p == ' ') ++p;
    SizeT length = 0;
    while (p[length] != '\0' && p[length] != ' ') ++length;
    if (length == 0) break;
    if (column > kTextColumn && column + 1 + length > kLineWidth) {
      VG_(printf)("\n");
      PrintSpaces(kTextColumn);
      column = kTextColumn;
    } else if (column > kTextColumn) {
      VG_(printf)(" ");
      ++column;
    }
    for (SizeT i = 0; i < length; ++i) VG_(printf)("%c", p[i]);
    column += length;
    p += length;
  }
  return column;
}

// "    --name=values", then the help text and "[default]" from kTextColumn on
// (on the next line when the option reaches it).
void PrintOptionText(const OptionText& option) {
  PrintSpaces(kOptionIndent);
  VG_(printf)("%s=%s", option.name, option.values);
  SizeT column = kOptionIndent + VG_(strlen)(option.name) + 1 + VG_(strlen)(option.values);
  if (column + 2 > kTextColumn) {
    VG_(printf)("\n");
    column = 0;
  }
  PrintSpaces(kTextColumn - column);
  column = PrintWords(option.help, kTextColumn);
  if (option.default_value[0] != '\0') {
    char shown[64];
    VG_(snprintf)(shown, sizeof shown, "[%s]", option.default_value);
    PrintWords(shown, column);
  }
  VG_(printf)("\n");
}

void PrintOptionTexts(const OptionText* options, SizeT count) {
  for (SizeT i = 0; i < count; ++i) PrintOptionText(options[i]);
}

}  // namespace

Options& TheOptions() {
  if (!options_constructed) {
    new (options_storage) Options();
    options_constructed = true;
  }
  return *reinterpret_cast<Options*>(options_storage);
}

bool ProcessCommandLineOption(const char* arg) {
  Options& o = TheOptions();
  const HChar* value;
  if (VG_STR_CLO(arg, "--memory-resolution", value)) {
    const char* expected = "1, 2, 4, 8 or 16 (bytes per memory cell)";
    const u64 n = ParseNumber(arg, value, 1, 16, expected);
    if ((n & (n - 1)) != 0) BadOption(arg, expected);
    o.memory_resolution = static_cast<unsigned>(n);
  } else if (VG_STR_CLO(arg, "--cost-metric", value)) {
    if (VG_STREQ(value, "bb"))
      o.cost_metric = CostMetric::kBasicBlocks;
    else if (VG_STREQ(value, "instructions"))
      o.cost_metric = CostMetric::kInstructions;
    else
      BadOption(arg, "bb or instructions");
  } else if (VG_STR_CLO(arg, "--aprof-out-file", value)) {
    if (value[0] == '\0') BadOption(arg, "a file name");
    o.out_file = value;
  } else if (VG_STR_CLO(arg, "--syscall-input", value)) {
    if (VG_STREQ(value, "all"))
      o.syscall_input = SyscallInput::kAll;
    else if (VG_STREQ(value, "io"))
      o.syscall_input = SyscallInput::kIo;
    else
      BadOption(arg, "all or io");
  } else if (VG_STR_CLO(arg, "--skip-routine", value)) {
    AddPattern(arg, value, o.skip_patterns);
  } else if (VG_STR_CLO(arg, "--collect-inside", value)) {
    AddPattern(arg, value, o.collect_inside_patterns);
  } else if (VG_STR_CLO(arg, "--dump-before", value)) {
    AddPattern(arg, value, o.dump_before_patterns);
  } else if (VG_STR_CLO(arg, "--dump-after", value)) {
    AddPattern(arg, value, o.dump_after_patterns);
  } else if (VG_STR_CLO(arg, "--dump-every", value)) {
    o.dump_every_seconds =
        ParseNumber(arg, value, 1, 1000000000, "a number of seconds from 1 to 1000000000");
  } else if (VG_BOOL_CLO(arg, "--collect-atstart", o.collect_at_start)) {
  } else if (VG_BOOL_CLO(arg, "--trms", o.track_trms)) {
  } else if (VG_BOOL_CLO(arg, "--input-sources", o.input_sources)) {
  } else if (VG_BOOL_CLO(arg, "--collect-context", o.collect_context)) {
  } else if (VG_BOOL_CLO(arg, "--go-async-preemption", o.go_async_preemption)) {
  } else if (VG_STR_CLO(arg, "--context-depth", value)) {
    o.context_depth = static_cast<u32>(
        ParseNumber(arg, value, 1, 1000000, "a number from 1 to 1000000 (routines)"));
  } else if (VG_STR_CLO(arg, "--overflow-threshold", value)) {
    static_assert(kMaxTimestamp == 2147483647, "the message below names the bound");
    o.overflow_threshold = static_cast<Timestamp>(
        ParseNumber(arg, value, 64, kMaxTimestamp, "a number from 64 to 2147483647"));
  } else {
    return false;
  }
  return true;
}

void PrintUsage() { PrintOptionTexts(kOptionTexts, sizeof kOptionTexts / sizeof kOptionTexts[0]); }

void PrintDebugUsage() {
  PrintOptionTexts(kDebugOptionTexts, sizeof kDebugOptionTexts / sizeof kDebugOptionTexts[0]);
}

const char* CostMetricName(CostMetric metric) {
  return metric == CostMetric::kBasicBlocks ? "bb" : "instructions";
}

const char* SyscallInputName(SyscallInput input) {
  return input == SyscallInput::kAll ? "all" : "io";
}

}  // namespace aprof
