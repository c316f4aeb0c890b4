// SPDX-License-Identifier: GPL-2.0-or-later
// The profile tables' layout: the hash map (dense entries behind an index
// of hash-tagged slots) against std::map, including keys whose hashes
// collide in part or in full, growth, stable references and the checked
// limit of its 32-bit entry numbers; the 192-bit sum of squares kept in
// three words, carries included.
//
// Copyright (C) 2026, the aprof-trms authors.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <utility>
#include <vector>

#include "core/hash_map.h"
#include "core/profile_table.h"

namespace aprof {
namespace {

struct Pair {
  u32 a;
  u64 b;
};

// Hash with few distinct values, so that many keys share a home slot and a
// tag: lookups must then tell keys apart by Equal.
struct CollidingTraits {
  static u64 Hash(const Pair& k) { return MixHash(k.b % 5); }
  static bool Equal(const Pair& x, const Pair& y) { return x.a == y.a && x.b == y.b; }
};

// Hash whose top 32 bits (home slot and tag) vary while the low bits do
// not: the index must be placed by the top bits.
struct TopBitsTraits {
  static u64 Hash(const Pair& k) { return MixHash(k.b * 31 + k.a) & ~u64{0xffffffff}; }
  static bool Equal(const Pair& x, const Pair& y) { return x.a == y.a && x.b == y.b; }
};

struct Payload {
  u64 count;
  u64 sum;
};

template <typename Traits>
void CheckAgainstStdMap(u64 seed, int operations, int key_range) {
  HashMap<Pair, Payload, Traits> map;
  std::map<std::pair<u32, u64>, Payload> expected;
  std::vector<std::pair<u32, u64>> order;  // keys in first-insertion order
  std::mt19937_64 rng(seed);
  for (int i = 0; i < operations; ++i) {
    const Pair key{static_cast<u32>(rng() % 3), rng() % key_range};
    const u64 add = rng() % 1000;
    Payload& got = map.FindOrInsert(key);
    auto [it, inserted] = expected.insert({{key.a, key.b}, Payload{0, 0}});
    if (inserted) {
      order.push_back({key.a, key.b});
      ASSERT_EQ(got.count, 0u) << "a new entry is not zeroed";
      ASSERT_EQ(got.sum, 0u);
    }
    ++got.count;
    got.sum += add;
    ++it->second.count;
    it->second.sum += add;
    ASSERT_EQ(map.size(), expected.size());
  }
  for (const auto& [key, want] : expected) {
    const Payload* found = map.Find(Pair{key.first, key.second});
    ASSERT_NE(found, nullptr) << "lost key " << key.first << "," << key.second;
    EXPECT_EQ(found->count, want.count);
    EXPECT_EQ(found->sum, want.sum);
  }
  EXPECT_EQ(map.Find(Pair{7, 0}), nullptr);
  EXPECT_EQ(map.Find(Pair{0, static_cast<u64>(key_range)}), nullptr);
  size_t i = 0;
  map.ForEach([&](const Pair& key, const Payload& value) {
    ASSERT_LT(i, order.size());
    EXPECT_EQ(key.a, order[i].first) << "entry " << i << " out of insertion order";
    EXPECT_EQ(key.b, order[i].second) << "entry " << i << " out of insertion order";
    EXPECT_EQ(value.count, expected[order[i]].count);
    ++i;
  });
  EXPECT_EQ(i, order.size());
}

TEST(HashMap, EqualsStdMapWithGoodHash) {
  struct Good {
    static u64 Hash(const Pair& k) { return MixHash(k.b * 0x9e3779b97f4a7c15ULL + k.a); }
    static bool Equal(const Pair& x, const Pair& y) { return x.a == y.a && x.b == y.b; }
  };
  CheckAgainstStdMap<Good>(1, 200000, 30000);  // grows to 2^17 slots
}

TEST(HashMap, EqualsStdMapWhenHashesCollide) { CheckAgainstStdMap<CollidingTraits>(2, 20000, 600); }

TEST(HashMap, PlacesByTheTopBitsOfTheHash) { CheckAgainstStdMap<TopBitsTraits>(3, 50000, 8000); }

TEST(HashMap, ReferencesStayValidWhenItGrows) {
  HashMap<Pair, Payload, CollidingTraits> map;
  Payload* first = &map.FindOrInsert(Pair{1, 1});
  first->sum = 42;
  for (u64 b = 2; b < 5000; ++b) map.FindOrInsert(Pair{1, b}).sum = b;
  EXPECT_EQ(&map.FindOrInsert(Pair{1, 1}), first);
  EXPECT_EQ(first->sum, 42u);
  map.Clear();
  EXPECT_EQ(map.size(), 0u);
  EXPECT_EQ(map.Find(Pair{1, 1}), nullptr);
  EXPECT_EQ(map.FindOrInsert(Pair{1, 1}).sum, 0u) << "an entry after Clear is not zeroed";
}

// An entry costs its own size plus the index: 8-byte slots, at most 3/4
// and at least 3/8 full, and the chunks' last partial one.
TEST(HashMap, ProfileTuplesCostTheirSizePlusTheIndex) {
  constexpr size_t kEntry = sizeof(ProfileKey) + sizeof(InputSizeTuple);
  EXPECT_EQ(kEntry, 96u);
  InputSizeTable table;
  for (u64 n = 1; n <= 100000; ++n) {
    table.FindOrInsert(ProfileKey{static_cast<RoutineId>(n % 97), n}).calls = 1;
    if (n % 997 == 0 || n == 100000) {
      EXPECT_LE(table.bytes(), n * (kEntry + 8 * 8 / 3 + 1) + 4096) << n << " entries";
      EXPECT_GE(table.bytes(), n * (kEntry + 8 * 4 / 3)) << n << " entries";
    }
  }
}

// The index keeps entry numbers in 32 bits: a table that would outgrow its
// limit stops with a failed check instead of wrapping.
TEST(HashMapDeathTest, StopsAtItsEntryLimit) {
  using Small = HashMap<Pair, Payload, CollidingTraits, 8>;
  Small map;
  for (u64 b = 0; b < 8; ++b) map.FindOrInsert(Pair{0, b});
  map.FindOrInsert(Pair{0, 3}).count = 5;  // an existing key at the limit is fine
  EXPECT_EQ(map.size(), 8u);
  EXPECT_DEATH(map.FindOrInsert(Pair{0, 8}), "size_ < kMaxEntries");
}

TEST(WideSum, CarriesAcrossItsThreeWords) {
  const u128 max128 = ~u128{0};
  WideSum sum{};
  sum.Add(u128{~u64{0}});
  sum.Add(u128{1});
  EXPECT_EQ(sum.low, 0u);
  EXPECT_EQ(sum.middle, 1u) << "no carry from the low word";
  EXPECT_EQ(sum.high, 0u);
  sum.Add(max128);  // 2^64 + 2^128 - 1 = 2^128 + (2^64 - 1)
  EXPECT_EQ(sum.high, 1u) << "no carry out of 128 bits";
  EXPECT_EQ(sum.Low128(), u128{~u64{0}});
  // The largest square of a 64-bit cost, twice, then merged twice.
  const u128 square = static_cast<u128>(~u64{0}) * ~u64{0};
  WideSum squares{};
  squares.Add(square);
  squares.Add(square);
  EXPECT_EQ(squares.high, 1u);
  EXPECT_EQ(squares.Low128(), square * 2);  // modulo 2^128
  WideSum merged = squares;
  merged.Add(squares);
  EXPECT_EQ(merged.high, 3u);  // 4 squares: 2 + the carry of the low words
  EXPECT_EQ(merged.Low128(), square * 4);
  EXPECT_TRUE(merged == merged);
  EXPECT_FALSE(merged == squares);
}

}  // namespace
}  // namespace aprof
