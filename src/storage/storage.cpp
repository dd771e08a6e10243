#include "storage/storage.h"

namespace llmon::storage {

void SeriesIterator::append_until(int64_t maxt_ms, std::vector<model::Sample>& out) {
  do {
    model::Sample s = at();
    if (s.t_ms > maxt_ms) return;
    out.push_back(s);
  } while (next());
}

}  // namespace llmon::storage
