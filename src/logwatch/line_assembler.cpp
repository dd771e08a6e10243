#include "logwatch/line_assembler.h"

namespace llmon::logwatch {

void LineAssembler::feed(std::string_view bytes, const Sink& sink) {
  size_t pos = 0;
  while (pos < bytes.size()) {
    size_t nl = bytes.find('\n', pos);
    std::string_view piece = bytes.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    if (!cut_) {
      size_t room = max_line_ - partial_.size();
      if (piece.size() <= room) {
        partial_.append(piece);
      } else {
        // Too long: hand out the first max_line_ bytes now, skip the rest.
        partial_.append(piece.substr(0, room));
        ++truncated_;
        sink(partial_, offset_ + piece.size());
        partial_.clear();
        cut_ = true;
      }
    }
    offset_ += piece.size();
    if (nl == std::string_view::npos) break;
    offset_ += 1;  // the '\n'
    if (!cut_) sink(partial_, offset_);
    partial_.clear();
    cut_ = false;
    line_start_ = offset_;
    pos = nl + 1;
  }
}

void LineAssembler::flush(const Sink& sink) {
  if (!has_partial()) return;
  if (!cut_) sink(partial_, offset_);
  partial_.clear();
  cut_ = false;
  line_start_ = offset_;
}

void LineAssembler::reset(uint64_t offset) {
  partial_.clear();
  cut_ = false;
  offset_ = offset;
  line_start_ = offset;
}

}  // namespace llmon::logwatch
