// SPDX-License-Identifier: GPL-2.0-or-later
// The writer table of --input-sources=yes (input_sources.h).
#include "input_sources.h"

namespace aprof {

WriterTag WriterTable::TagOf(const Writer& writer) {
  WriterTag& tag = tags_.FindOrInsert(writer);
  if (tag == 0) {
    writers_.push_back(writer);
    tag = static_cast<WriterTag>(writers_.size());
  }
  return tag;
}

void WriterTable::RenumberThreadsAfterFork(u32 survivor_serial) {
  tags_.Clear();
  for (size_t i = 0; i < writers_.size(); ++i) {
    Writer& w = writers_[i];
    if (!w.kernel) w.thread = w.thread == survivor_serial ? 1 : 0;
    WriterTag& tag = tags_.FindOrInsert(w);
    if (tag == 0) tag = static_cast<WriterTag>(i + 1);
  }
}

}  // namespace aprof
