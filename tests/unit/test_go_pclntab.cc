// SPDX-License-Identifier: GPL-2.0-or-later
// Go function names from the pclntab (core/go_pclntab.h): the installed
// gofmt (a stripped Go binary, as Debian ships them) read through the ELF
// reader and compared, function by function, with what Go's own
// `go tool addr2line` says; the other formats (Go 1.16, Go 1.20) built from
// the same functions; and truncated or corrupt tables, read from buffers
// that end at a guard page so that a read past their end crashes the test.
//
// Copyright (C) 2026, the aprof-trms authors.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/go_pclntab.h"
#include "elf_test_files.h"

namespace aprof {
namespace {

// The program `name` as the shell finds it on PATH; fails the test if
// there is none (golang-go is in the install list).
std::string ProgramOnPath(const char* name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  ADD_FAILURE() << name << " not found on PATH (Debian package golang-go)";
  return "";
}

struct Function {
  u64 entry;
  std::string name;
};

struct Section {
  std::vector<u8> bytes;
  u64 text_address;
};

// The installed gofmt's .gopclntab and .text address.
const Section& Gofmt() {
  static Section* section = [] {
    auto* s = new Section{{}, 0};
    OpenFile file(ProgramOnPath("gofmt"));
    ElfSection pclntab, text;
    EXPECT_TRUE(FindElfSection(file.elf(), ".gopclntab", &pclntab)) << "gofmt has no .gopclntab";
    EXPECT_TRUE(FindElfSection(file.elf(), ".text", &text));
    s->bytes.resize(pclntab.size);
    EXPECT_TRUE(ReadFd(file.elf().file, pclntab.offset, s->bytes.data(), pclntab.size));
    s->text_address = text.address;
    return s;
  }();
  return *section;
}

std::vector<Function> Functions(const GoFunctionTable& table) {
  std::vector<Function> functions;
  for (size_t i = 0; i < table.size(); ++i) functions.push_back({table.entry(i), table.name(i)});
  return functions;
}

// Parses bytes held in a guarded buffer; the error is "" on success.
std::vector<Function> Parse(const std::vector<u8>& bytes, u64 text_address, std::string* error) {
  GoFunctionTable table;
  ParseGuarded(bytes, text_address, &table, error);
  return Functions(table);
}

// Function names `go tool addr2line` gives the addresses (Go's debug/gosym
// reading the same table).
std::vector<std::string> GoToolNames(const std::string& binary, const std::vector<u64>& addresses) {
  char input[] = "/tmp/aprof-addr2line-XXXXXX";
  const int fd = mkstemp(input);
  EXPECT_GE(fd, 0);
  std::string lines;
  for (u64 address : addresses) {
    char hex[32];
    std::snprintf(hex, sizeof hex, "%#llx\n", static_cast<unsigned long long>(address));
    lines += hex;
  }
  EXPECT_EQ(write(fd, lines.data(), lines.size()), static_cast<ssize_t>(lines.size()));
  close(fd);
  const std::string command = ProgramOnPath("go") + " tool addr2line " + binary + " < " + input;
  FILE* output = popen(command.c_str(), "r");
  EXPECT_NE(output, nullptr);
  std::vector<std::string> names;
  char line[65536];
  // Two lines per address: the function, then file:line.
  for (bool function = true; output && std::fgets(line, sizeof line, output); function = !function) {
    if (!function) continue;
    line[std::strcspn(line, "\n")] = '\0';
    names.push_back(line);
  }
  EXPECT_EQ(output ? pclose(output) : -1, 0) << command;
  unlink(input);
  return names;
}

TEST(GoPclntab, GofmtNamesAreGoToolNames) {
  const Section& gofmt = Gofmt();
  std::string error;
  const std::vector<Function> functions = Parse(gofmt.bytes, gofmt.text_address, &error);
  ASSERT_EQ(error, "");
  ASSERT_GT(functions.size(), 1000u);
  std::vector<u64> addresses;
  for (const Function& f : functions) addresses.push_back(f.entry);
  const std::vector<std::string> names = GoToolNames(ProgramOnPath("gofmt"), addresses);
  ASSERT_EQ(names.size(), functions.size());
  size_t printer = 0, main = 0;
  for (size_t i = 0; i < functions.size(); ++i) {
    EXPECT_EQ(functions[i].name, names[i]) << "at 0x" << std::hex << functions[i].entry;
    printer += functions[i].name == "go/printer.(*printer).print";
    main += functions[i].name == "main.main";
  }
  EXPECT_EQ(printer, 1u);
  EXPECT_EQ(main, 1u);
}

TEST(GoPclntab, LookupFindsTheFunctionHoldingAnAddress) {
  const Section& gofmt = Gofmt();
  GoFunctionTable table;
  const char* error = nullptr;
  ASSERT_TRUE(table.Parse(gofmt.bytes.data(), gofmt.bytes.size(), gofmt.text_address, &error));
  u64 entry = 0;
  EXPECT_EQ(table.FunctionAt(table.entry(0) - 1, &entry), nullptr);
  for (size_t i = 0; i + 1 < table.size(); ++i) {
    ASSERT_STREQ(table.FunctionAt(table.entry(i), &entry), table.name(i));
    EXPECT_EQ(entry, table.entry(i));
    if (table.entry(i + 1) > table.entry(i)) {
      ASSERT_STREQ(table.FunctionAt(table.entry(i + 1) - 1, &entry), table.name(i));
      EXPECT_EQ(entry, table.entry(i));
    }
  }
  // The last function ends where the table says: beyond, no function.
  const u64 last = table.entry(table.size() - 1);
  EXPECT_STREQ(table.FunctionAt(last, &entry), table.name(table.size() - 1));
  constexpr u64 kMaxFunctionBytes = 1 << 20;
  u64 end = last;
  while (end - last < kMaxFunctionBytes && table.FunctionAt(end, &entry) != nullptr) ++end;
  EXPECT_GT(end, last);
  EXPECT_LT(end - last, kMaxFunctionBytes);
}

u64 LoadLittleEndian(const u8* p) {
  u64 value = 0;
  for (int i = 7; i >= 0; --i) value = value << 8 | p[i];
  return value;
}

void Put(std::vector<u8>& bytes, size_t offset, u64 value, size_t width) {
  if (bytes.size() < offset + width) bytes.resize(offset + width);
  for (size_t i = 0; i < width; ++i) bytes[offset + i] = static_cast<u8>(value >> (8 * i));
}

// A pclntab of the given magic holding `functions` (the code ending at
// `end`), laid out as the Go linker does: header, names, function table,
// records. Go 1.18 and later count entries from `text_start`.
std::vector<u8> Build(u32 magic, const std::vector<Function>& functions, u64 end, u64 text_start) {
  const bool go118 = magic != 0xfffffffa;
  const size_t field = go118 ? 4 : 8, words = go118 ? 8 : 7;
  std::vector<u8> bytes;
  Put(bytes, 0, magic, 4);
  Put(bytes, 6, 1, 1);  // quantum
  Put(bytes, 7, 8, 1);  // pointer size
  const size_t names = 8 + 8 * words;
  bytes.resize(names);  // the header words, written last
  std::vector<u32> name_offsets;
  for (const Function& f : functions) {
    name_offsets.push_back(static_cast<u32>(bytes.size() - names));
    bytes.insert(bytes.end(), f.name.begin(), f.name.end());
    bytes.push_back(0);
  }
  const size_t functab = bytes.size();
  const size_t records = functab + (2 * functions.size() + 1) * field;
  const u64 base = go118 ? text_start : 0;
  for (size_t i = 0; i < functions.size(); ++i) {
    const size_t record = records + i * (field + 4);
    Put(bytes, functab + 2 * i * field, functions[i].entry - base, field);
    Put(bytes, functab + (2 * i + 1) * field, record - functab, field);
    Put(bytes, record, functions[i].entry - base, field);
    Put(bytes, record + field, name_offsets[i], 4);
  }
  Put(bytes, functab + 2 * functions.size() * field, end - base, field);
  Put(bytes, 8, functions.size(), 8);
  if (go118) Put(bytes, 8 + 2 * 8, text_start, 8);
  Put(bytes, 8 + (go118 ? 3 : 2) * 8, names, 8);
  Put(bytes, 8 + (go118 ? 7 : 6) * 8, functab, 8);
  return bytes;
}

const std::vector<Function> kFunctions = {
    {0x401000, "internal/cpu.Initialize"}, {0x401120, "runtime.gogo"},
    {0x401180, "gogo"}, {0x4011c0, "main.insertionSort"}, {0x401300, "main.main"}};
constexpr u64 kEnd = 0x401380;

bool SameFunctions(const std::vector<Function>& a, const std::vector<Function>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].entry != b[i].entry || a[i].name != b[i].name) return false;
  return true;
}

TEST(GoPclntab, ReadsTheFormatsOfGo116Go118AndGo120) {
  for (u32 magic : {0xfffffffau, 0xfffffff0u, 0xfffffff1u}) {
    std::string error;
    EXPECT_TRUE(SameFunctions(Parse(Build(magic, kFunctions, kEnd, 0x401000), 0, &error),
                              kFunctions)) << std::hex << magic << " " << error;
  }
  // Go 1.20's table is Go 1.18's with another magic: gofmt's as Go 1.20's.
  std::vector<u8> go120 = Gofmt().bytes;
  Put(go120, 0, 0xfffffff1, 4);
  std::string error, error120;
  EXPECT_TRUE(SameFunctions(Parse(go120, Gofmt().text_address, &error120),
                            Parse(Gofmt().bytes, Gofmt().text_address, &error)));
  EXPECT_EQ(error120, "");
  // Go 1.2 to 1.15 (0xfffffffb) is not read.
  Parse(Build(0xfffffffb, kFunctions, kEnd, 0), 0, &error);
  EXPECT_NE(error, "");
}

TEST(GoPclntab, TextStartFromTheHeaderOrElseFromText) {
  std::string error;
  // A position-independent binary's header may hold no address (an
  // unapplied relocation): entries then count from .text.
  std::vector<u8> bytes = Build(0xfffffff0, kFunctions, kEnd, 0x401000);
  Put(bytes, 8 + 2 * 8, 0, 8);
  EXPECT_TRUE(SameFunctions(Parse(bytes, 0x401000, &error), kFunctions)) << error;
  // The header's address wins over .text's.
  EXPECT_TRUE(SameFunctions(Parse(Build(0xfffffff0, kFunctions, kEnd, 0x401000), 0x400000, &error),
                            kFunctions)) << error;
}

// Each corruption gives its reason and no names.
TEST(GoPclntab, CorruptTablesGiveNoNames) {
  const std::vector<u8> good = Build(0xfffffff0, kFunctions, kEnd, 0x401000);
  size_t names_bytes = 0;
  for (const Function& f : kFunctions) names_bytes += f.name.size() + 1;
  const size_t functab = 8 + 8 * 8 + names_bytes;  // after the names (see Build)
  const size_t records = functab + 11 * 4;
  const Corruption corruptions[] = {
      {"magic", 0, 0xfffffffe, 4, "not the table of Go 1.16 or later (unknown magic)"},
      {"pad", 4, 1, 1, "malformed header"},
      {"quantum", 6, 3, 1, "malformed header"},
      {"pointer size", 7, 4, 1, "not a 64-bit table"},
      {"no functions", 8, 0, 8, "no functions"},
      {"function count", 8, 1ull << 61, 8, "function table out of bounds"},
      {"function count past the end", 8, 1000, 8, "function table out of bounds"},
      {"names", 8 + 3 * 8, 1 << 20, 8, "function name table out of bounds"},
      {"function table", 8 + 7 * 8, ~0ull - 3, 8, "function table out of bounds"},
      {"order", functab + 4 * 4, 0x10, 4, "entries out of order"},
      {"end", functab + 10 * 4, 0x100, 4, "entries out of order"},
      {"record", functab + 3 * 4, 1 << 20, 4, "function record out of bounds"},
      {"record entry", records + 8, 0x121, 4, "function record disagrees with the function table"},
      {"name offset", records + 4, 1 << 20, 4, "function name out of bounds"},
      {"negative name offset", records + 4, 0xfffffff0, 4, "negative name offset"},
      {"empty name", records + 4, names_bytes - 1, 4, "function name out of bounds"},
  };
  for (const Corruption& c : corruptions) {
    std::vector<u8> bytes = good;
    Put(bytes, c.offset, c.value, c.width);
    std::string error;
    EXPECT_TRUE(Parse(bytes, 0x401000, &error).empty()) << c.what;
    EXPECT_EQ(error, c.reason) << c.what;
  }
  // A name that runs to the end of the section without its NUL.
  std::vector<u8> unterminated = good;
  Put(unterminated, records + 4, good.size() - (8 + 8 * 8), 4);  // from the names table
  unterminated.insert(unterminated.end(), {'a', 'b', 'c'});
  std::string error;
  EXPECT_TRUE(Parse(unterminated, 0x401000, &error).empty());
  EXPECT_EQ(error, "function name out of bounds");
}

// Every prefix of gofmt's table that cuts into its function table or
// records is refused; none reads past its end (guard page).
TEST(GoPclntab, TruncatedTablesGiveNoNames) {
  const Section& gofmt = Gofmt();
  std::string error;
  const std::vector<Function> whole = Parse(gofmt.bytes, gofmt.text_address, &error);
  ASSERT_EQ(error, "");
  const size_t size = gofmt.bytes.size();
  std::vector<size_t> lengths;
  for (size_t n = 0; n < 256; ++n) lengths.push_back(n);
  for (size_t n = 256; n < size; n += size / 997) lengths.push_back(n);
  for (size_t n = size - 64; n < size; ++n) lengths.push_back(n);
  size_t refused = 0;
  for (size_t n : lengths) {
    const std::vector<u8> prefix(gofmt.bytes.begin(), gofmt.bytes.begin() + n);
    const std::vector<Function> functions = Parse(prefix, gofmt.text_address, &error);
    // Cut after the last record's name offset: nothing lost.
    if (error.empty())
      EXPECT_TRUE(SameFunctions(functions, whole)) << n;
    else
      ++refused;
  }
  // The records come last; only the last few cuts keep what is needed.
  EXPECT_GE(refused, lengths.size() - 64) << lengths.size();
}

// Random bytes changed anywhere: never a read out of bounds, and what is
// parsed stays within the section.
TEST(GoPclntab, RandomCorruptionNeverReadsOutOfBounds) {
  const std::vector<u8> good = Build(0xfffffff0, kFunctions, kEnd, 0x401000);
  const unsigned seed = 27;
  std::mt19937 random(seed);
  for (int trial = 0; trial < 20000; ++trial) {
    const std::vector<u8> bytes = Corrupted(good, random);
    std::string error;
    for (const Function& f : Parse(bytes, 0x401000, &error))
      EXPECT_LT(f.name.size(), bytes.size()) << "seed " << seed << " trial " << trial;
  }
}

// The ELF reader on gofmt's own file cut short and on files that are not
// ELF: no section, and no read outside the file.
TEST(GoPclntab, ElfReaderRefusesWhatIsNotThere) {
  std::vector<u8> file;
  {
    OpenFile gofmt(ProgramOnPath("gofmt"));
    ElfFile elf = gofmt.elf();
    file.resize(elf.size);
    ASSERT_TRUE(elf.read(elf.file, 0, file.data(), file.size()));
  }
  struct Memory {
    const std::vector<u8>* bytes;
    size_t size;
  };
  auto read = [](void* from, u64 offset, void* buffer, size_t size) {
    const Memory& m = *static_cast<Memory*>(from);
    EXPECT_LE(offset + size, m.size) << "read past the end of the file";
    if (offset + size > m.size) return false;
    std::memcpy(buffer, m.bytes->data() + offset, size);
    return true;
  };
  ElfSection section;
  Memory whole = {&file, file.size()};
  ASSERT_TRUE(FindElfSection({read, &whole, file.size()}, ".gopclntab", &section));
  EXPECT_FALSE(FindElfSection({read, &whole, file.size()}, ".no-such-section", &section));
  // The section headers are at the end of a Go binary: any cut loses them.
  for (size_t n : {size_t{0}, size_t{63}, size_t{64}, file.size() / 2, file.size() - 1}) {
    Memory cut = {&file, n};
    EXPECT_FALSE(FindElfSection({read, &cut, n}, ".gopclntab", &section)) << n;
  }
  // A section header that says the table runs past the end of the file.
  std::vector<u8> overlong = file;
  const u64 headers = LoadLittleEndian(&file[0x28]), count = file[0x3c] | file[0x3d] << 8;
  for (u64 header = headers; header < headers + count * 64; header += 64)
    if (LoadLittleEndian(&file[header + 0x18]) == section.offset) {
      Put(overlong, header + 0x20, file.size() - section.offset + 1, 8);
      break;
    }
  Memory cut_short = {&overlong, overlong.size()};
  EXPECT_FALSE(FindElfSection({read, &cut_short, overlong.size()}, ".gopclntab", &section));
  std::vector<u8> text(4096, 'x');
  Memory not_elf = {&text, text.size()};
  EXPECT_FALSE(FindElfSection({read, &not_elf, text.size()}, ".text", &section));
  GoFunctionTable table;
  const char* error = nullptr;
  EXPECT_EQ(ReadGoFunctionTable({read, &not_elf, text.size()}, &table, &error), GoTableStatus::kNone);
}

}  // namespace
}  // namespace aprof
