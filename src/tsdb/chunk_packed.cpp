// The packed encoding (3): docs/format/chunk.md "Encoding 3 (packed)", the
// encoder's choices included. encode_packed() sees every sample of a closed
// chunk, so it picks the cheapest of its codes for the whole chunk by their
// bit counts (exact, or estimated from a histogram for Rice parameters)
// instead of greedily per sample; seal_chunk() keeps whichever of the packed
// and the original bytes is smaller, after checking the packed bytes decode
// to the same samples. Also the ChunkDecoder's packed paths.
#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <string>

#include "tsdb/chunk.h"
#include "tsdb/chunk_codes.h"

namespace llmon::tsdb {

using packed::kLenBits;
using packed::kMaxScale;
using packed::kPow10;
using packed::kRiceEscape;
using packed::Mode;
using packed::SeqMode;
using packed::unzigzag;
using packed::zigzag;

namespace {

constexpr double kTwo53 = 9007199254740992.0;

// x rounded to a nearest integer, |x| <= 2^53 (ties to even: only a candidate,
// every use checks it).
int64_t round_int(double x) {
  constexpr double kTwo52 = 4503599627370496.0, kMagic = 1.5 * kTwo52;
  if (std::fabs(x) >= kTwo52) return static_cast<int64_t>(x);  // an integer already
  return static_cast<int64_t>((x + kMagic) - kMagic);
}

int bitlen(uint64_t x) {
  return 64 - std::countl_zero(x);
}
uint64_t vb_bits(uint64_t x) {
  return kLenBits + static_cast<uint64_t>(bitlen(x));
}
uint64_t rice_bits(uint64_t u, int p) {
  uint64_t q = u >> p;
  return q < kRiceEscape ? q + 1 + static_cast<uint64_t>(p) : kRiceEscape + vb_bits(u);
}

// A bit writer for whole chunks (MSB first, like BitWriter): bits gather in
// a 64-bit accumulator and leave a byte at a time.
class Writer {
 public:
  std::vector<uint8_t>& bytes() { return out_; }
  // The low n (0..64) bits of v.
  void write_bits(uint64_t v, int n) {
    if (n > 56) {
      write_bits(v >> 32, n - 32);
      write_bits(v & 0xffffffff, 32);
      return;
    }
    if (n == 0) return;
    acc_ = (acc_ << n) | (v & ((uint64_t{1} << n) - 1));
    pending_ += n;
    while (pending_ >= 8) {
      pending_ -= 8;
      out_.push_back(static_cast<uint8_t>(acc_ >> pending_));
    }
  }
  void write_bit(bool b) { write_bits(b ? 1 : 0, 1); }
  // Pads the last byte with 0 bits.
  void finish() {
    if (pending_ > 0) out_.push_back(static_cast<uint8_t>(acc_ << (8 - pending_)));
    pending_ = 0;
  }

 private:
  std::vector<uint8_t> out_;
  uint64_t acc_ = 0;
  int pending_ = 0;  // bits in acc_ not yet out (< 8 between calls)
};

void put_vb(Writer& w, uint64_t x) {
  int len = bitlen(x);
  w.write_bits(static_cast<uint64_t>(len), kLenBits);
  w.write_bits(x, len);
}
void put_rice(Writer& w, uint64_t u, int p) {
  uint64_t q = u >> p;
  if (q < kRiceEscape) {
    w.write_bits((uint64_t{1} << q) - 1, static_cast<int>(q));
    w.write_bit(false);
    w.write_bits(u, p);
  } else {
    w.write_bits((uint64_t{1} << kRiceEscape) - 1, kRiceEscape);
    put_vb(w, u);
  }
}

// Bit-length histogram of values (count and sum per length), from which a
// Rice parameter is chosen without a pass per candidate.
struct Hist {
  uint64_t n = 0;
  uint64_t count[65] = {};
  double sum[65] = {};
  void add(uint64_t u) {
    int b = bitlen(u);
    ++count[b];
    sum[b] += static_cast<double>(u);
    ++n;
  }
};

// The Rice parameter with the fewest bits by the estimate from h (floor
// effects aside, exact), tried around the median's bit length (Rice's best p
// is near the log of the typical value). Returns the estimated bits.
struct Rice {
  int p = 0;
  uint64_t bits = 0;
};
Rice rice_estimate(const Hist& h) {
  if (h.n == 0) return {0, 0};
  int lens[65], nlens = 0, median = -1;
  uint64_t seen = 0;
  for (int b = 0; b <= 64; ++b) {
    if (h.count[b] == 0) continue;
    lens[nlens++] = b;
    seen += h.count[b];
    if (median < 0 && seen * 2 >= h.n) median = b;
  }
  const int first = std::max(0, median - 3);
  Rice best{first, 0};
  double best_est = 0;
  for (int p = first; p <= std::min(63, median + 1); ++p) {
    const double scale = std::ldexp(1.0, -p);
    double est = 0;
    for (int i = 0; i < nlens; ++i) {
      const int b = lens[i];
      const auto c = static_cast<double>(h.count[b]);
      if (b <= p) {
        est += c * (1 + p);
      } else if ((uint64_t{1} << (b - 1)) >> p >= static_cast<uint64_t>(kRiceEscape)) {
        est += c * (kRiceEscape + kLenBits + b);
      } else {
        est += h.sum[b] * scale + c * (1 + p);
      }
    }
    if (p == first || est < best_est) {
      best_est = est;
      best.p = p;
    }
  }
  best.bits = static_cast<uint64_t>(best_est);
  return best;
}

// The best Rice parameter for f(x) over xs and its exact bits.
template <typename F>
Rice best_rice(const std::vector<uint64_t>& xs, F f) {
  Hist h;
  for (uint64_t x : xs) h.add(f(x));
  Rice best = rice_estimate(h);
  best.bits = 0;
  for (uint64_t x : xs) best.bits += rice_bits(f(x), best.p);
  return best;
}
Rice best_rice(const std::vector<uint64_t>& us) {
  return best_rice(us, [](uint64_t u) { return u; });
}

// Sparse form of a sequence: the nonzero elements (zigzag − 1) and the gaps
// of zeros before each and after the last (docs/format/chunk.md).
struct Sparse {
  std::vector<uint64_t> gaps, vals;
};
Sparse sparse_of(const std::vector<uint64_t>& xs, size_t zeros) {
  Sparse s;
  s.gaps.reserve(xs.size() - zeros + 1);
  s.vals.reserve(xs.size() - zeros);
  uint64_t run = 0;
  for (uint64_t x : xs) {
    if (x == 0) {
      ++run;
      continue;
    }
    s.gaps.push_back(run);
    s.vals.push_back(zigzag(x) - 1);
    run = 0;
  }
  s.gaps.push_back(run);
  return s;
}

// How the n − 1 integers of a value sequence are coded.
struct SeqPlan {
  SeqMode mode = SeqMode::kForDelta;
  uint64_t mult = 1;
  uint64_t base = 0;
  int width = 0;
  int p = 0, gap_p = 0;
  std::vector<uint64_t> xs;  // the coded elements (after / mult, delta or dod form)
  uint64_t bits = 0;         // everything: parameters and elements
};

// The gcd of |d| over the deltas (0 if all are 0): the odd parts' gcd (which
// is soon 1, and then stays) times the smallest power of two among them.
uint64_t gcd_of(const std::vector<uint64_t>& deltas) {
  uint64_t odd = 0;
  int tz = 64;
  for (uint64_t d : deltas) {
    uint64_t a = static_cast<int64_t>(d) < 0 ? ~d + 1 : d;
    if (a == 0) continue;
    int z = std::countr_zero(a);
    tz = std::min(tz, z);
    if (odd == 1) continue;
    a >>= z;
    if (odd == 0) {
      odd = a;
      continue;
    }
    while (a != odd) {  // binary gcd of two odd numbers
      if (a < odd) std::swap(a, odd);
      a -= odd;
      a >>= std::countr_zero(a);
    }
  }
  if (odd == 0) return 0;
  if (tz + std::bit_width(odd) > 64) return 1;  // would not fit: no multiplier
  return odd << tz;
}

SeqPlan plan_sequence(const std::vector<uint64_t>& deltas) {
  uint64_t g = gcd_of(deltas);
  if (g == 0 || g > (uint64_t{1} << 62)) g = 1;
  // Every delta the same (a steady counter, a constant): for-delta of width 0.
  if (!deltas.empty() && std::all_of(deltas.begin(), deltas.end(), [&](uint64_t d) { return d == deltas[0]; })) {
    auto q0 = static_cast<uint64_t>(static_cast<int64_t>(deltas[0]) / static_cast<int64_t>(g));  // ±1, 0 or d
    SeqPlan plan{SeqMode::kForDelta, g, q0, 0, 0, 0, std::vector<uint64_t>(deltas.size(), q0), 0};
    plan.bits = vb_bits(plan.mult) + 3 + vb_bits(zigzag(q0)) + 7;
    return plan;
  }
  const bool pow2 = std::has_single_bit(g);
  const int shift = std::countr_zero(g);
  std::vector<uint64_t> q(deltas.size()), dod(deltas.size());
  uint64_t prev = 0;
  for (size_t i = 0; i < deltas.size(); ++i) {
    auto d = static_cast<int64_t>(deltas[i]);
    q[i] = static_cast<uint64_t>(pow2 ? d >> shift : d / static_cast<int64_t>(g));  // exact: g divides d
    dod[i] = q[i] - prev;
    prev = q[i];
  }
  // One pass of statistics per form; the codes are chosen from them (for
  // and sparse exactly, Rice by its estimate) and only the winner's Rice
  // bits are counted exactly.
  struct Form {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    uint64_t zeros = 0;
    Hist zz;
  } forms[2];
  for (size_t i = 0; i < q.size(); ++i) {
    for (int f = 0; f < 2; ++f) {
      uint64_t x = f == 0 ? q[i] : dod[i];
      auto sx = static_cast<int64_t>(x);
      Form& st = forms[f];
      st.lo = std::min(st.lo, sx);
      st.hi = std::max(st.hi, sx);
      st.zeros += x == 0;
      st.zz.add(zigzag(x));
    }
  }
  SeqPlan best;
  best.bits = UINT64_MAX;
  bool rice_estimated = false;
  const uint64_t head = vb_bits(g) + 3;
  for (int form = 0; form < 2; ++form) {
    const Form& st = forms[form];
    const std::vector<uint64_t>& xs = form == 0 ? q : dod;
    // Frame of reference: every element − min in a fixed width.
    auto lo = static_cast<uint64_t>(st.lo);
    int width = bitlen(static_cast<uint64_t>(st.hi) - lo);
    uint64_t for_bits = head + vb_bits(zigzag(lo)) + 7 + static_cast<uint64_t>(width) * xs.size();
    if (for_bits < best.bits) {
      best = {form == 0 ? SeqMode::kForDelta : SeqMode::kForDod, g, lo, width, 0, 0, {}, for_bits};
      rice_estimated = false;
    }
    Rice r = rice_estimate(st.zz);
    uint64_t rice_total = head + 6 + r.bits;
    if (rice_total < best.bits) {
      best = {form == 0 ? SeqMode::kRiceDelta : SeqMode::kRiceDod, g, 0, 0, r.p, 0, {}, rice_total};
      rice_estimated = true;
    }
    // Sparse pays only when zeros are common (each nonzero costs a gap code
    // more than under Rice).
    if (st.zeros * 8 >= xs.size()) {
      Sparse sp = sparse_of(xs, st.zeros);
      Rice rg = best_rice(sp.gaps), rv = best_rice(sp.vals);
      uint64_t sparse_total = head + 12 + rg.bits + rv.bits;
      if (sparse_total < best.bits) {
        best = {form == 0 ? SeqMode::kSparseDelta : SeqMode::kSparseDod, g, 0, 0, rv.p, rg.p, {}, sparse_total};
        rice_estimated = false;
      }
    }
  }
  best.xs = packed::is_dod(best.mode) ? std::move(dod) : std::move(q);
  if (rice_estimated) {
    best.bits = head + 6;
    for (uint64_t x : best.xs) best.bits += rice_bits(zigzag(x), best.p);
  }
  return best;
}

void put_seq_params(Writer& w, const SeqPlan& s) {
  put_vb(w, s.mult);
  w.write_bits(static_cast<uint64_t>(s.mode), 3);
  switch (s.mode) {
    case SeqMode::kForDelta:
    case SeqMode::kForDod:
      put_vb(w, zigzag(s.base));
      w.write_bits(static_cast<uint64_t>(s.width), 7);
      break;
    case SeqMode::kRiceDelta:
    case SeqMode::kRiceDod:
      w.write_bits(static_cast<uint64_t>(s.p), 6);
      break;
    case SeqMode::kSparseDelta:
    case SeqMode::kSparseDod: {
      w.write_bits(static_cast<uint64_t>(s.gap_p), 6);
      w.write_bits(static_cast<uint64_t>(s.p), 6);
      size_t first = 0;
      while (first < s.xs.size() && s.xs[first] == 0) ++first;
      put_rice(w, first, s.gap_p);
      break;
    }
  }
}

// Writes element j of the sequence (and, for sparse, the gap after it).
void put_seq_element(Writer& w, const SeqPlan& s, size_t j) {
  uint64_t x = s.xs[j];
  switch (s.mode) {
    case SeqMode::kForDelta:
    case SeqMode::kForDod:
      w.write_bits(x - s.base, s.width);
      break;
    case SeqMode::kRiceDelta:
    case SeqMode::kRiceDod:
      put_rice(w, zigzag(x), s.p);
      break;
    case SeqMode::kSparseDelta:
    case SeqMode::kSparseDod: {
      if (x == 0) break;
      put_rice(w, zigzag(x) - 1, s.p);
      size_t next = j + 1;
      while (next < s.xs.size() && s.xs[next] == 0) ++next;
      put_rice(w, next - j - 1, s.gap_p);
      break;
    }
  }
}

// v == decimal_value(m, op, k) bit-exactly with |m| <= 2^53 (then *m is set).
bool decimal_at(double v, packed::DecimalOp op, int k, int64_t* m) {
  if (!std::isfinite(v)) return false;
  double scale = op == packed::DecimalOp::kThousands ? kPow10[3 * k] : kPow10[k];
  double x = v * scale;
  if (!(std::fabs(x) <= kTwo53)) return false;
  int64_t r = round_int(x);
  for (int64_t c : {r, r - 1, r + 1}) {
    if (c > (int64_t{1} << 53) || c < -(int64_t{1} << 53)) continue;
    if (std::bit_cast<uint64_t>(packed::decimal_value(static_cast<uint64_t>(c), op, k)) == std::bit_cast<uint64_t>(v)) {
      *m = c;
      return true;
    }
    if (op == packed::DecimalOp::kDivide) break;  // a correctly rounded quotient: only r can match
  }
  return false;
}

// The smallest k at which every value is decimal under op, and the integers; -1 if none.
int decimal_scale(std::span<const model::Sample> s, packed::DecimalOp op, std::vector<int64_t>& ms) {
  ms.resize(s.size());
  int first = op == packed::DecimalOp::kThousands ? 1 : 0;
  int last = op == packed::DecimalOp::kThousands ? packed::kMaxThousands : kMaxScale;
  for (int k = first; k <= last; ++k) {
    bool all = true;
    for (size_t i = 0; i < s.size() && all; ++i) all = decimal_at(s[i].v, op, k, &ms[i]);
    if (all) return k;
  }
  return -1;
}

// Sum mode: v_i == v_(i-1) + m_i / 10^k (two IEEE roundings, as the decoder
// computes it) for every i >= 1, all values finite. Returns the smallest such
// k and the increments m_1.. (in incs), or -1.
bool increment_at(double prev, double v, int k, int64_t* m) {
  double x = (v - prev) * kPow10[k];
  if (!(std::fabs(x) <= kTwo53)) return false;
  int64_t r = round_int(x);
  for (int64_t c : {r, r - 1, r + 1}) {
    if (c > (int64_t{1} << 53) || c < -(int64_t{1} << 53)) continue;
    double got = prev + static_cast<double>(c) / kPow10[k];
    if (std::bit_cast<uint64_t>(got) == std::bit_cast<uint64_t>(v)) {
      *m = c;
      return true;
    }
  }
  return false;
}

int sum_scale(std::span<const model::Sample> s, std::vector<int64_t>& incs) {
  incs.assign(s.size() - 1, 0);
  if (!std::isfinite(s[0].v)) return -1;
  int k = 0;
  for (size_t i = 1; i < s.size(); ++i) {
    if (!std::isfinite(s[i].v)) return -1;
    while (k <= kMaxScale && !increment_at(s[i - 1].v, s[i].v, k, &incs[i - 1])) ++k;
    if (k > kMaxScale) return -1;
  }
  for (; k <= kMaxScale; ++k) {
    bool all = true;
    for (size_t i = 1; i < s.size() && all; ++i) all = increment_at(s[i - 1].v, s[i].v, k, &incs[i - 1]);
    if (all) return k;
  }
  return -1;
}

// The timestamps' plan: the most frequent delta and the exceptions to it.
struct TimeException {
  size_t i;
  bool anchor;
  uint64_t code;  // zigzag(e) − 1
};
struct TimePlan {
  uint64_t step = 0;
  std::vector<TimeException> exc;
  std::vector<uint64_t> gaps;  // before the first exception, after each
  int gap_p = 0, res_p = 0;
  uint64_t bits = 0;
};

TimePlan plan_time(std::span<const model::Sample> s) {
  TimePlan tp;
  size_t n = s.size();
  std::vector<uint64_t> deltas(n - 1);
  bool regular = true;
  for (size_t i = 1; i < n; ++i) {
    deltas[i - 1] = static_cast<uint64_t>(s[i].t_ms) - static_cast<uint64_t>(s[i - 1].t_ms);
    regular = regular && deltas[i - 1] == deltas[0];
  }
  // The most frequent delta: every one (no exceptions), or a majority one
  // found in one pass (the usual case); otherwise sort.
  uint64_t cand = deltas[0];
  size_t votes = 0;
  for (size_t i = 0; i < deltas.size() && !regular; ++i) {
    if (votes == 0) cand = deltas[i];
    votes += deltas[i] == cand ? 1 : static_cast<size_t>(-1);
  }
  if (regular || static_cast<size_t>(std::count(deltas.begin(), deltas.end(), cand)) * 2 > deltas.size()) {
    tp.step = cand;
  } else {
    std::vector<uint64_t> sorted = deltas;
    std::sort(sorted.begin(), sorted.end());
    size_t best_run = 0;
    for (size_t i = 0; i < sorted.size();) {
      size_t j = i;
      while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
      if (j - i > best_run) {
        best_run = j - i;
        tp.step = sorted[i];
      }
      i = j;
    }
  }
  uint64_t grid = static_cast<uint64_t>(s[0].t_ms);
  size_t last = 0;
  for (size_t i = regular ? n : 1; i < n; ++i) {
    uint64_t t = static_cast<uint64_t>(s[i].t_ms), pred = grid + tp.step;
    if (t == pred) {
      grid = pred;
      continue;
    }
    // Keep the old grid when the next sample is back on it (a jittered
    // sample); otherwise move the grid here (a gap, a drift).
    bool anchor = !(i + 1 < n && static_cast<uint64_t>(s[i + 1].t_ms) == pred + tp.step);
    tp.exc.push_back({i, anchor, zigzag(t - pred) - 1});
    tp.gaps.push_back(i - last - 1);
    last = i;
    grid = anchor ? t : pred;
  }
  tp.gaps.push_back(n - 1 - last);
  std::vector<uint64_t> codes;
  for (const auto& e : tp.exc) codes.push_back(e.code);
  Rice rg = best_rice(tp.gaps), rr = best_rice(codes);
  tp.gap_p = rg.p;
  tp.res_p = rr.p;
  tp.bits = vb_bits(zigzag(tp.step)) + 12 + rg.bits + rr.bits + tp.exc.size();
  return tp;
}

}  // namespace

Expected<std::vector<uint8_t>> encode_packed(std::span<const model::Sample> s) {
  size_t n = s.size();
  if (n == 0 || n > kMaxChunkSamples)
    return Status::error("chunk: packed: " + std::to_string(n) + " samples (1.." + std::to_string(kMaxChunkSamples) +
                         ")");
  for (size_t i = 1; i < n; ++i) {
    if (s[i].t_ms <= s[i - 1].t_ms)
      return Status::error("chunk: packed: sample " + std::to_string(i) + " at t=" + std::to_string(s[i].t_ms) +
                           " is not after t=" + std::to_string(s[i - 1].t_ms));
  }
  Writer w;
  auto& out = w.bytes();
  out.reserve(16 + n * 2);
  out.push_back(static_cast<uint8_t>(Encoding::kPacked));
  out.push_back(static_cast<uint8_t>(n >> 8));
  out.push_back(static_cast<uint8_t>(n));
  for (uint64_t z = codes::zigzag(s[0].t_ms);; z >>= 7) {
    if (z < 0x80) {
      out.push_back(static_cast<uint8_t>(z));
      break;
    }
    out.push_back(static_cast<uint8_t>(z | 0x80));
  }

  TimePlan tp;
  if (n >= 2) {
    tp = plan_time(s);
    put_vb(w, zigzag(tp.step));
    w.write_bits(static_cast<uint64_t>(tp.gap_p), 6);
    w.write_bits(static_cast<uint64_t>(tp.res_p), 6);
    put_rice(w, tp.gaps[0], tp.gap_p);
  }

  // Values: constant, decimal integers, IEEE bits or sums of decimal
  // increments, whichever is smallest.
  auto bits_of = [&](size_t i) { return std::bit_cast<uint64_t>(s[i].v); };
  bool constant = true;
  for (size_t i = 1; i < n && constant; ++i) constant = bits_of(i) == bits_of(0);
  std::vector<int64_t> ms;
  int k = decimal_scale(constant ? s.first(1) : s, packed::DecimalOp::kDivide, ms);
  packed::DecimalOp op = packed::DecimalOp::kDivide;
  Mode mode = Mode::kConstant;
  SeqPlan seq;
  uint64_t best = 0;
  if (!constant) {
    std::vector<uint64_t> deltas(n - 1);
    best = UINT64_MAX;
    // Values that are m / 10^k are not tried as floats (never smaller on the
    // measured inputs, and planning costs as much as the rest of the seal).
    if (k < 0) {
      for (size_t i = 1; i < n; ++i) deltas[i - 1] = bits_of(i) - bits_of(i - 1);
      seq = plan_sequence(deltas);
      mode = Mode::kFloat;
      best = 64 + seq.bits;
    }
    // Decimal: the first op under which every value is an integer (m / 10^k
    // is tried first; the others only when it fails).
    bool decimal_fits = false;
    for (auto try_op : {packed::DecimalOp::kDivide, packed::DecimalOp::kMultiply, packed::DecimalOp::kThousands}) {
      std::vector<int64_t> m2;
      int k2 = try_op == packed::DecimalOp::kDivide ? k : decimal_scale(s, try_op, m2);
      if (k2 < 0) continue;
      decimal_fits = true;
      if (try_op != packed::DecimalOp::kDivide) ms = std::move(m2);
      for (size_t i = 1; i < n; ++i) deltas[i - 1] = static_cast<uint64_t>(ms[i]) - static_cast<uint64_t>(ms[i - 1]);
      SeqPlan dec = plan_sequence(deltas);
      uint64_t bits = 7 + vb_bits(zigzag(static_cast<uint64_t>(ms[0]))) + dec.bits;
      if (bits < best) {
        seq = std::move(dec);
        mode = Mode::kDecimal;
        best = bits;
        op = try_op;
        k = k2;
      }
      break;
    }
    std::vector<int64_t> incs;
    int ks = decimal_fits ? -1 : sum_scale(s, incs);
    if (ks >= 0) {
      for (size_t i = 1; i < n; ++i) deltas[i - 1] = static_cast<uint64_t>(incs[i - 1]);
      SeqPlan sum = plan_sequence(deltas);
      if (64 + 5 + sum.bits < best) {
        seq = std::move(sum);
        mode = Mode::kSum;
        k = ks;
      }
    }
  }
  w.write_bits(static_cast<uint64_t>(mode), 2);
  switch (mode) {
    case Mode::kConstant:
      w.write_bit(k >= 0);
      if (k >= 0) {
        w.write_bits(static_cast<uint64_t>(k), 5);
        put_vb(w, zigzag(static_cast<uint64_t>(ms[0])));
      } else {
        w.write_bits(bits_of(0), 64);
      }
      break;
    case Mode::kDecimal:
      w.write_bits(static_cast<uint64_t>(op), 2);
      w.write_bits(static_cast<uint64_t>(k), 5);
      put_vb(w, zigzag(static_cast<uint64_t>(ms[0])));
      put_seq_params(w, seq);
      break;
    case Mode::kFloat:
      w.write_bits(bits_of(0), 64);
      put_seq_params(w, seq);
      break;
    case Mode::kSum:
      w.write_bits(bits_of(0), 64);
      w.write_bits(static_cast<uint64_t>(k), 5);
      put_seq_params(w, seq);
      break;
  }

  size_t next_exc = 0;
  for (size_t i = 1; i < n; ++i) {
    if (next_exc < tp.exc.size() && tp.exc[next_exc].i == i) {
      const TimeException& e = tp.exc[next_exc];
      w.write_bit(e.anchor);
      put_rice(w, e.code, tp.res_p);
      put_rice(w, tp.gaps[++next_exc], tp.gap_p);
    }
    if (mode != Mode::kConstant) put_seq_element(w, seq, i - 1);
  }
  w.finish();
  return std::move(out);
}

// A chunk at most this many bytes longer than its header is all predicted
// samples (runs) after its first value; packing can only shorten that value,
// which pays for a constant (a short decimal instead of 64 bits: ~5 bytes)
// but not for anything else (a steady counter's 240-sample chunk is 24 bytes
// either way), so only constants among them are sealed: the seal costs
// about 100 ns per sample.
constexpr size_t kSealMinBody = 16;

Expected<std::vector<uint8_t>> seal_chunk(std::span<const uint8_t> chunk) {
  auto dec0 = ChunkDecoder::open(chunk);
  if (!dec0) return dec0.status();
  std::vector<uint8_t> original(chunk.begin(), chunk.end());
  size_t header = codes::kHeaderFixed + 1;
  while (header < chunk.size() && (chunk[header - 1] & 0x80)) ++header;
  if (dec0->encoding() != Encoding::kGroup && chunk.size() <= header + kSealMinBody && dec0->num_samples() > 1) {
    uint64_t v0 = dec0->next() ? std::bit_cast<uint64_t>(dec0->at().v) : 0;
    if (!dec0->next() || std::bit_cast<uint64_t>(dec0->at().v) != v0) return original;
  }
  auto samples = decode_chunk(chunk);
  if (!samples) return samples.status();
  if (chunk[0] == static_cast<uint8_t>(Encoding::kPacked)) return original;
  auto packed_bytes = encode_packed(*samples);
  if (!packed_bytes || packed_bytes->size() >= original.size()) return original;
  // The packed bytes must give back exactly these samples.
  auto dec = ChunkDecoder::open(*packed_bytes);
  if (!dec || dec->num_samples() != samples->size()) return original;
  for (const auto& want : *samples) {
    if (!dec->next() || dec->at().t_ms != want.t_ms ||
        std::bit_cast<uint64_t>(dec->at().v) != std::bit_cast<uint64_t>(want.v))
      return original;
  }
  if (dec->next() || !dec->err().is_ok()) return original;
  return std::move(*packed_bytes);
}

// ---- ChunkDecoder, packed ----

std::string ChunkDecoder::describe() const {
  std::string out = group_ ? "group part " + std::to_string(part_ + 1) + ": " : "";
  out += std::string(encoding_name(encoding_));
  if (encoding_ != Encoding::kPacked) return out;
  const packed::DecodeState& ps = packed_;
  static constexpr const char* kModes[] = {"constant", "decimal", "float", "sum"};
  static constexpr const char* kSeqs[] = {"for-delta", "for-dod",      "rice-delta",
                                          "rice-dod",  "sparse-delta", "sparse-dod"};
  out += ": time step " + std::to_string(ps.step) + ", values " + kModes[static_cast<int>(ps.mode)];
  if (ps.mode == Mode::kDecimal) out += " op " + std::to_string(static_cast<int>(ps.op));
  if (ps.mode == Mode::kDecimal || ps.mode == Mode::kSum) out += " scale " + std::to_string(ps.scale);
  if (ps.mode != Mode::kConstant) {
    out += std::string(", ") + kSeqs[static_cast<int>(ps.seq)];
    if (ps.mult != 1) out += " x" + std::to_string(ps.mult);
  }
  return out;
}

Status ChunkDecoder::open_packed(std::span<const uint8_t> stream) {
  packed::DecodeState& ps = packed_;
  ps.r = packed::Reader(stream);
  packed::Reader& r = ps.r;
  auto bad = [](const std::string& what) { return Status::error("chunk: packed parameters: " + what); };
  if (count_ >= 2) {
    ps.step = unzigzag(r.vb());
    ps.t_gap_p = static_cast<int>(r.read(6));
    ps.t_res_p = static_cast<int>(r.read(6));
    ps.t_left = r.rice(ps.t_gap_p);
    ps.grid = static_cast<uint64_t>(first_t_);
  }
  ps.mode = static_cast<Mode>(r.read(2));
  auto read_scale = [&]() {
    ps.scale = static_cast<int>(r.read(5));
    return ps.scale <= kMaxScale;
  };
  auto from_decimal = [&](uint64_t m) { return std::bit_cast<uint64_t>(packed::decimal_value(m, ps.op, ps.scale)); };
  if (ps.mode == Mode::kConstant) {
    if (r.read(1)) {
      if (!read_scale()) return bad("scale " + std::to_string(ps.scale));
      v_prev_bits_ = from_decimal(unzigzag(r.vb()));
    } else {
      v_prev_bits_ = r.read(64);
    }
  } else {
    if (ps.mode == Mode::kDecimal) {
      ps.op = static_cast<packed::DecimalOp>(r.read(2));
      ps.scale = static_cast<int>(r.read(5));
      if (!packed::decimal_params_ok(ps.op, ps.scale))
        return bad("decimal op " + std::to_string(static_cast<int>(ps.op)) + " with scale " + std::to_string(ps.scale));
      ps.acc = unzigzag(r.vb());
      v_prev_bits_ = from_decimal(ps.acc);
    } else {
      ps.acc = v_prev_bits_ = r.read(64);
      if (ps.mode == Mode::kSum && !read_scale()) return bad("scale " + std::to_string(ps.scale));
    }
    ps.mult = r.vb();
    if (ps.mult == 0 && !r.failed()) return bad("multiplier 0");
    uint64_t seq = r.read(3);
    if (seq > 5) return bad("sequence code " + std::to_string(seq));
    ps.seq = static_cast<SeqMode>(seq);
    switch (ps.seq) {
      case SeqMode::kForDelta:
      case SeqMode::kForDod:
        ps.base = unzigzag(r.vb());
        ps.width = static_cast<int>(r.read(7));
        if (ps.width > 64) return bad("width " + std::to_string(ps.width));
        break;
      case SeqMode::kRiceDelta:
      case SeqMode::kRiceDod:
        ps.p = static_cast<int>(r.read(6));
        break;
      case SeqMode::kSparseDelta:
      case SeqMode::kSparseDod:
        ps.gap_p = static_cast<int>(r.read(6));
        ps.p = static_cast<int>(r.read(6));
        ps.v_left = r.rice(ps.gap_p);
        break;
    }
  }
  if (r.failed()) return Status::error("chunk: packed: bit stream ends in the parameters");
  return Status::ok();
}

inline uint64_t ChunkDecoder::packed_seq_value() {
  packed::DecodeState& ps = packed_;
  switch (ps.seq) {
    case SeqMode::kForDelta:
      return ps.base + ps.r.read(ps.width);
    case SeqMode::kForDod:
      return ps.d += ps.base + ps.r.read(ps.width);
    case SeqMode::kRiceDelta:
      return unzigzag(ps.r.rice(ps.p));
    case SeqMode::kRiceDod:
      return ps.d += unzigzag(ps.r.rice(ps.p));
    case SeqMode::kSparseDelta:
    case SeqMode::kSparseDod: {
      uint64_t x = 0;
      if (ps.v_left > 0) {
        --ps.v_left;
      } else {
        x = unzigzag(ps.r.rice(ps.p) + 1);
        ps.v_left = ps.r.rice(ps.gap_p);
      }
      return ps.seq == SeqMode::kSparseDod ? ps.d += x : x;
    }
  }
  return 0;
}

// One sample after the first (idx_ > 0): its timestamp into *t_out (checked
// against prev_t) and its value into v_prev_bits_; false after fail().
// Inlined into next_packed() and next_packed_many(): the bulk path decodes
// without a call per sample and keeps the sample in registers.
inline bool ChunkDecoder::packed_step(int64_t prev_t, int64_t* t_out) {
  packed::DecodeState& ps = packed_;
  uint64_t t;
  if (ps.t_left > 0) {
    --ps.t_left;
    t = ps.grid += ps.step;
  } else {
    bool anchor = ps.r.read(1) != 0;
    uint64_t pred = ps.grid + ps.step;
    t = pred + unzigzag(ps.r.rice(ps.t_res_p) + 1);
    ps.grid = anchor ? t : pred;
    ps.t_left = ps.r.rice(ps.t_gap_p);
  }
  switch (ps.mode) {
    case Mode::kConstant:
      break;
    case Mode::kDecimal:
      ps.acc += ps.mult * packed_seq_value();
      v_prev_bits_ = std::bit_cast<uint64_t>(packed::decimal_value(ps.acc, ps.op, ps.scale));
      break;
    case Mode::kFloat:
      v_prev_bits_ = ps.acc += ps.mult * packed_seq_value();
      break;
    case Mode::kSum: {
      double inc = static_cast<double>(static_cast<int64_t>(ps.mult * packed_seq_value())) / kPow10[ps.scale];
      v_prev_bits_ = std::bit_cast<uint64_t>(std::bit_cast<double>(v_prev_bits_) + inc);
      break;
    }
  }
  if (ps.r.failed()) return fail("bit stream ends in the sample");
  auto ts = static_cast<int64_t>(t);
  if (ts <= prev_t) return fail("timestamp " + std::to_string(ts) + " not after " + std::to_string(prev_t));
  *t_out = ts;
  ++idx_;
  return true;
}

bool ChunkDecoder::next_packed() {
  if (idx_ == 0) {
    cur_ = {first_t_, std::bit_cast<double>(v_prev_bits_)};
    ++idx_;
    return true;
  }
  int64_t t = 0;
  if (!packed_step(cur_.t_ms, &t)) return false;
  cur_ = {t, std::bit_cast<double>(v_prev_bits_)};
  return true;
}

bool ChunkDecoder::seek_in_packed_part(int64_t t_ms) {
  int64_t prev = cur_.t_ms;
  while (idx_ < count_) {
    int64_t t = 0;
    if (!packed_step(prev, &t)) return false;
    prev = t;
    if (t >= t_ms) {
      cur_ = {t, std::bit_cast<double>(v_prev_bits_)};
      return true;
    }
  }
  cur_.t_ms = prev;  // the part's last sample (its value is not needed to go on)
  cur_.v = std::bit_cast<double>(v_prev_bits_);
  return false;
}

size_t ChunkDecoder::next_packed_many(model::Sample* out, size_t n) {
  int64_t prev = cur_.t_ms;
  size_t k = 0;
  for (; k < n; ++k) {
    int64_t t = 0;
    if (!packed_step(prev, &t)) break;
    out[k].t_ms = t;
    out[k].v = std::bit_cast<double>(v_prev_bits_);
    prev = t;
  }
  if (k > 0) cur_ = out[k - 1];
  return k;
}

}  // namespace llmon::tsdb
