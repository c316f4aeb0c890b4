// SPDX-License-Identifier: GPL-2.0-or-later
// Files and buffers for the tests of the ELF readers (test_go_pclntab.cc,
// test_eh_frame_hdr.cc): a real file opened for core/go_pclntab.h's
// ElfFile, and bytes placed just before an inaccessible page, so that a
// parser reading past their end crashes the test.
//
// Copyright (C) 2026, the aprof-trms authors.
#ifndef APROF_TESTS_UNIT_ELF_TEST_FILES_H
#define APROF_TESTS_UNIT_ELF_TEST_FILES_H

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/go_pclntab.h"

namespace aprof {

inline bool ReadFd(void* file, u64 offset, void* buffer, size_t size) {
  return pread(*static_cast<int*>(file), buffer, size, static_cast<off_t>(offset)) ==
         static_cast<ssize_t>(size);
}

// A file opened for the ELF reader.
class OpenFile {
 public:
  explicit OpenFile(const std::string& path) : fd_(open(path.c_str(), O_RDONLY)) {
    struct stat status;
    size_ = fd_ >= 0 && fstat(fd_, &status) == 0 ? static_cast<u64>(status.st_size) : 0;
  }
  ~OpenFile() {
    if (fd_ >= 0) close(fd_);
  }
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
  ElfFile elf() { return {ReadFd, &fd_, size_}; }

 private:
  int fd_;
  u64 size_ = 0;
};

// Bytes copied to the end of a mapping followed by an inaccessible page:
// reading one byte past them crashes.
class GuardedBytes {
 public:
  explicit GuardedBytes(const std::vector<u8>& bytes) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    pages_ = (bytes.size() + page - 1) / page * page + page;
    base_ = static_cast<u8*>(
        mmap(nullptr, pages_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    EXPECT_NE(base_, MAP_FAILED);
    EXPECT_EQ(mprotect(base_ + pages_ - page, page, PROT_NONE), 0);
    data_ = base_ + pages_ - page - bytes.size();
    if (!bytes.empty()) std::memcpy(data_, bytes.data(), bytes.size());
  }
  ~GuardedBytes() { munmap(base_, pages_); }
  GuardedBytes(const GuardedBytes&) = delete;
  GuardedBytes& operator=(const GuardedBytes&) = delete;
  const u8* data() const { return data_; }

 private:
  u8* base_;
  size_t pages_;
  u8* data_;
};

// A field of a table overwritten with a bad value, and the reason the
// parser must give for it.
struct Corruption {
  const char* what;
  size_t offset;
  u64 value;
  size_t width;
  const char* reason;
};

// `good` with one to four of its bytes changed at random: the fuzzing of
// both table parsers.
inline std::vector<u8> Corrupted(const std::vector<u8>& good, std::mt19937& random) {
  std::vector<u8> bytes = good;
  for (int changes = 1 + random() % 4; changes > 0; --changes)
    bytes[random() % bytes.size()] = static_cast<u8>(random());
  return bytes;
}

// Parses bytes held in a guarded buffer into *table (a parser of the
// engine: Parse(bytes, size, address, &reason)); the error is "" on
// success, and a table that refuses the bytes must be left empty.
template <typename Table>
void ParseGuarded(const std::vector<u8>& bytes, u64 address, Table* table, std::string* error) {
  GuardedBytes guarded(bytes);
  const char* reason = nullptr;
  const bool parsed = table->Parse(guarded.data(), bytes.size(), address, &reason);
  EXPECT_EQ(parsed, reason == nullptr);
  *error = parsed ? "" : reason;
  if (!parsed) {
    EXPECT_EQ(table->size(), 0u);
  }
}

}  // namespace aprof

#endif  // APROF_TESTS_UNIT_ELF_TEST_FILES_H
