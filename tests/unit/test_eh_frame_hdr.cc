// SPDX-License-Identifier: GPL-2.0-or-later
// Function starts from .eh_frame_hdr (core/eh_frame_hdr.h): every function
// symbol of this freshly built test binary and of a system library that
// keeps its symbols (libtsan, which gcc-12 brings) is a start of the table
// read through the ELF reader, and a stripped copy gives the same table;
// the other encodings, built from the same starts; truncated and corrupt
// headers, read from buffers that end at a guard page so that a read past
// their end crashes the test.
//
// Copyright (C) 2026, the aprof-trms authors.
#include <elf.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "core/eh_frame_hdr.h"
#include "elf_test_files.h"

namespace aprof {
namespace {

// A system library with a symbol table (Debian keeps the sanitizers' ones).
constexpr char kLibraryWithSymbols[] = "/usr/lib/x86_64-linux-gnu/libtsan.so.2";

std::vector<u8> FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return std::vector<u8>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// This test binary's file (/proc/self/exe names another in a command).
std::string ThisBinary() {
  char path[4096];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  EXPECT_GT(length, 0);
  return std::string(path, length > 0 ? static_cast<size_t>(length) : 0);
}

struct Symbol {
  u64 address;
  std::string name;
};

// The defined function symbols of nonzero size in the ELF file's .symtab
// (glibc's <elf.h>, independent of the reader under test).
std::vector<Symbol> FunctionSymbols(const std::string& path) {
  const std::vector<u8> file = FileBytes(path);
  std::vector<Symbol> symbols;
  if (file.size() < sizeof(Elf64_Ehdr)) return symbols;
  const auto* header = reinterpret_cast<const Elf64_Ehdr*>(file.data());
  const auto* sections = reinterpret_cast<const Elf64_Shdr*>(file.data() + header->e_shoff);
  for (int i = 0; i < header->e_shnum; ++i) {
    if (sections[i].sh_type != SHT_SYMTAB) continue;
    const Elf64_Shdr& names = sections[sections[i].sh_link];
    const auto* table = reinterpret_cast<const Elf64_Sym*>(file.data() + sections[i].sh_offset);
    for (size_t s = 0; s < sections[i].sh_size / sizeof(Elf64_Sym); ++s) {
      if (ELF64_ST_TYPE(table[s].st_info) != STT_FUNC || table[s].st_shndx == SHN_UNDEF ||
          table[s].st_size == 0)
        continue;
      symbols.push_back({table[s].st_value,
                         reinterpret_cast<const char*>(file.data() + names.sh_offset +
                                                       table[s].st_name)});
    }
  }
  return symbols;
}

std::vector<u64> Starts(const FunctionStarts& starts) {
  std::vector<u64> all;
  for (size_t i = 0; i < starts.size(); ++i) all.push_back(starts.start(i));
  return all;
}

// The starts of the ELF file at `path`; fails the test if it has none.
std::vector<u64> FileStarts(const std::string& path, FunctionStarts* starts) {
  OpenFile file(path);
  const char* error = "";
  EXPECT_EQ(ReadFunctionStarts(file.elf(), starts, &error), UnwindTableStatus::kRead)
      << path << ": " << error;
  return Starts(*starts);
}

// Every function symbol starts a function of the table, and the table
// holds little else: the PLT's entries and functions without a symbol.
void ExpectSymbolsAreStarts(const std::string& path, size_t min_symbols) {
  FunctionStarts starts;
  const std::vector<u64> all = FileStarts(path, &starts);
  const std::vector<Symbol> symbols = FunctionSymbols(path);
  ASSERT_GE(symbols.size(), min_symbols) << path;
  std::vector<u64> symbol_addresses;
  for (const Symbol& s : symbols) {
    EXPECT_TRUE(starts.Contains(s.address)) << path << ": " << s.name << " at 0x" << std::hex
                                            << s.address;
    // Inside a function (its second byte) is no start.
    EXPECT_FALSE(starts.Contains(s.address + 1)) << path << ": " << s.name;
    symbol_addresses.push_back(s.address);
  }
  size_t without_symbol = 0;
  for (u64 start : all)
    without_symbol += std::find(symbol_addresses.begin(), symbol_addresses.end(), start) ==
                      symbol_addresses.end();
  EXPECT_LE(without_symbol, all.size() / 20) << path;
}

TEST(EhFrameHdr, EveryFunctionSymbolOfThisBinaryIsAStart) {
  ExpectSymbolsAreStarts(ThisBinary(), 1000);
}

TEST(EhFrameHdr, EveryFunctionSymbolOfALibraryIsAStart) {
  ExpectSymbolsAreStarts(kLibraryWithSymbols, 1000);
}

// `strip` keeps the unwind tables: the stripped copy gives the same starts.
TEST(EhFrameHdr, AStrippedCopyKeepsTheStarts) {
  char stripped[] = "/tmp/aprof-stripped-XXXXXX";
  const int fd = mkstemp(stripped);
  ASSERT_GE(fd, 0);
  close(fd);
  const std::string command = std::string("strip -o ") + stripped + " " + ThisBinary();
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  EXPECT_TRUE(FunctionSymbols(stripped).empty()) << "not stripped";
  FunctionStarts original, copy;
  EXPECT_EQ(FileStarts(stripped, &copy), FileStarts(ThisBinary(), &original));
  EXPECT_GT(copy.size(), 1000u);
  unlink(stripped);
}

TEST(EhFrameHdr, AFileWithoutTheSectionHasNoStarts) {
  // Not an ELF file, so no .eh_frame_hdr either.
  char path[] = "/tmp/aprof-noelf-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "#!/bin/sh\n", 10), 10);
  close(fd);
  OpenFile file(path);
  FunctionStarts starts;
  const char* error = nullptr;
  EXPECT_EQ(ReadFunctionStarts(file.elf(), &starts, &error), UnwindTableStatus::kNone);
  EXPECT_EQ(starts.size(), 0u);
  unlink(path);
}

void Put(std::vector<u8>& bytes, size_t offset, u64 value, size_t width) {
  if (bytes.size() < offset + width) bytes.resize(offset + width);
  for (size_t i = 0; i < width; ++i) bytes[offset + i] = static_cast<u8>(value >> (8 * i));
}

constexpr u64 kSectionAddress = 0x187824;
// Below the header, as linkers place .text: negative data-relative values.
const std::vector<u64> kStarts = {0x1000, 0x1040, 0x10a0, 0x2000, 0x187000};

// The bytes of a header with `starts`, the values of the given sizes (the
// pointer's, the count's, an entry's) and encodings; data-relative entries
// count from kSectionAddress. The FDE addresses are made up.
std::vector<u8> Build(const std::vector<u64>& starts, u8 pointer_encoding, size_t pointer_bytes,
                      u8 count_encoding, size_t count_bytes, u8 table_encoding,
                      size_t entry_bytes) {
  std::vector<u8> bytes = {1, pointer_encoding, count_encoding, table_encoding};
  Put(bytes, 4, 0x5858, pointer_bytes);
  Put(bytes, 4 + pointer_bytes, starts.size(), count_bytes);
  const bool data_relative = (table_encoding & 0x70) == 0x30;
  size_t at = bytes.size();
  for (u64 start : starts) {
    Put(bytes, at, data_relative ? start - kSectionAddress : start, entry_bytes);
    Put(bytes, at + entry_bytes, 0x6000 + at, entry_bytes);
    at += 2 * entry_bytes;
  }
  return bytes;
}

// What GNU ld and lld write.
std::vector<u8> BuildGnu(const std::vector<u64>& starts) {
  return Build(starts, 0x1b, 4, 0x03, 4, 0x3b, 4);
}

// Parses bytes held in a guarded buffer; the error is "" on success.
std::vector<u64> Parse(const std::vector<u8>& bytes, std::string* error) {
  FunctionStarts starts;
  ParseGuarded(bytes, kSectionAddress, &starts, error);
  return Starts(starts);
}

TEST(EhFrameHdr, ReadsTheEncodingsOfTheLinkersAndTheOtherFixedSizes) {
  std::string error;
  EXPECT_EQ(Parse(BuildGnu(kStarts), &error), kStarts) << error;
  // Absolute 8-byte entries, an 8-byte count, a data-relative pointer.
  EXPECT_EQ(Parse(Build(kStarts, 0x3b, 4, 0x04, 8, 0x04, 8), &error), kStarts) << error;
  EXPECT_EQ(Parse(Build(kStarts, 0x00, 8, 0x00, 8, 0x00, 8), &error), kStarts) << error;
  // Data-relative signed 8-byte entries; unsigned 4-byte absolute ones.
  EXPECT_EQ(Parse(Build(kStarts, 0x1b, 4, 0x03, 4, 0x3c, 8), &error), kStarts) << error;
  EXPECT_EQ(Parse(Build(kStarts, 0x1b, 4, 0x02, 2, 0x03, 4), &error), kStarts) << error;
  // Two-byte signed entries, for starts within 32 KiB of the header.
  const std::vector<u64> near = {kSectionAddress - 0x7000, kSectionAddress - 0x10,
                                 kSectionAddress + 0x100};
  EXPECT_EQ(Parse(Build(near, 0x1b, 4, 0x03, 4, 0x3a, 2), &error), near) << error;
  // No functions: an empty table.
  EXPECT_TRUE(Parse(BuildGnu({}), &error).empty());
  EXPECT_EQ(error, "");
}

TEST(EhFrameHdr, LookupFindsExactlyTheStarts) {
  const std::vector<u8> bytes = BuildGnu(kStarts);
  FunctionStarts starts;
  const char* error = nullptr;
  ASSERT_TRUE(starts.Parse(bytes.data(), bytes.size(), kSectionAddress, &error));
  for (u64 start : kStarts) {
    EXPECT_TRUE(starts.Contains(start)) << std::hex << start;
    EXPECT_FALSE(starts.Contains(start - 1)) << std::hex << start;
    EXPECT_FALSE(starts.Contains(start + 1)) << std::hex << start;
  }
  EXPECT_FALSE(starts.Contains(0));
  EXPECT_FALSE(starts.Contains(~0ull));
}

// Each corruption gives its reason and no starts.
TEST(EhFrameHdr, CorruptHeadersGiveNoStarts) {
  const std::vector<u8> good = BuildGnu(kStarts);
  const Corruption corruptions[] = {
      {"version", 0, 2, 1, "not version 1"},
      {"no count", 2, 0xff, 1, "no binary-search table"},
      {"no table", 3, 0xff, 1, "no binary-search table"},
      {"pointer uleb128", 1, 0x11, 1, "unsupported encoding of eh_frame_ptr"},
      {"pointer aligned", 1, 0x5b, 1, "unsupported encoding of eh_frame_ptr"},
      {"pointer indirect", 1, 0x9b, 1, "unsupported encoding of eh_frame_ptr"},
      {"count signed", 2, 0x0b, 1, "unsupported encoding of fde_count"},
      {"count pc-relative", 2, 0x13, 1, "unsupported encoding of fde_count"},
      {"count uleb128", 2, 0x01, 1, "unsupported encoding of fde_count"},
      {"table pc-relative", 3, 0x1b, 1, "unsupported encoding of the table"},
      {"table text-relative", 3, 0x2b, 1, "unsupported encoding of the table"},
      {"table function-relative", 3, 0x4b, 1, "unsupported encoding of the table"},
      {"table sleb128", 3, 0x39, 1, "unsupported encoding of the table"},
      {"table unknown format", 3, 0x3f, 1, "unsupported encoding of the table"},
      {"count past the end", 8, kStarts.size() + 1, 4, "table truncated"},
      {"huge count", 8, 0xffffffff, 4, "table truncated"},
      {"order", 12 + 8 * 2, 0, 4, "table out of order"},
  };
  for (const Corruption& c : corruptions) {
    std::vector<u8> bytes = good;
    Put(bytes, c.offset, c.value, c.width);
    std::string error;
    EXPECT_TRUE(Parse(bytes, &error).empty()) << c.what;
    EXPECT_EQ(error, c.reason) << c.what;
  }
  // An 8-byte pointer leaves no room for the count in a 12-byte header.
  std::string error;
  const std::vector<u8> header(good.begin(), good.begin() + 12);
  std::vector<u8> wide = header;
  wide[1] = 0x04;
  EXPECT_TRUE(Parse(wide, &error).empty());
  EXPECT_EQ(error, "header truncated");
}

// Every prefix of this binary's header that cuts into its table is
// refused; none reads past its end (guard page).
TEST(EhFrameHdr, TruncatedHeadersGiveNoStarts) {
  OpenFile file(ThisBinary());
  ElfSection section;
  ASSERT_TRUE(FindElfSection(file.elf(), ".eh_frame_hdr", &section));
  std::vector<u8> whole(section.size);
  ASSERT_TRUE(ReadFd(file.elf().file, section.offset, whole.data(), whole.size()));
  std::string error;
  std::vector<size_t> lengths;
  for (size_t n = 0; n < 256; ++n) lengths.push_back(n);
  for (size_t n = 256; n < whole.size(); n += whole.size() / 997) lengths.push_back(n);
  for (size_t n = whole.size() - 64; n <= whole.size(); ++n) lengths.push_back(n);
  for (size_t n : lengths) {
    const std::vector<u8> prefix(whole.begin(), whole.begin() + n);
    const std::vector<u64> starts = Parse(prefix, &error);
    if (n == whole.size()) {
      EXPECT_EQ(error, "");
      EXPECT_GT(starts.size(), 1000u);
    } else {
      EXPECT_NE(error, "") << n;
      EXPECT_EQ(error, n < 4 ? "shorter than its header"
                       : n < 12 ? "header truncated" : "table truncated") << n;
    }
  }
}

// Random bytes changed anywhere: never a read out of bounds, and what is
// parsed is sorted.
TEST(EhFrameHdr, RandomCorruptionNeverReadsOutOfBounds) {
  const std::vector<u8> good = BuildGnu(kStarts);
  const unsigned seed = 27;
  std::mt19937 random(seed);
  for (int trial = 0; trial < 20000; ++trial) {
    const std::vector<u8> bytes = Corrupted(good, random);
    std::string error;
    const std::vector<u64> starts = Parse(bytes, &error);
    EXPECT_TRUE(std::is_sorted(starts.begin(), starts.end())) << "seed " << seed << " trial "
                                                              << trial;
    EXPECT_LE(starts.size(), kStarts.size()) << "seed " << seed << " trial " << trial;
  }
}

}  // namespace
}  // namespace aprof
