// Go fmt over template values (go_fmt.h). Follows fmt/print.go and
// fmt/format.go of Go 1.19.
#include "rules/go_fmt.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "go/strconv.h"
#include "go/strconv.h"
#include "rules/humanize.h"

namespace llmon::rules::gofmt {

using tmpl::Kind;
using tmpl::Value;

namespace {

constexpr char kLowerHex[] = "0123456789abcdefx";
constexpr char kUpperHex[] = "0123456789ABCDEFX";

bool too_large(int x) {
  constexpr int kMax = 1000000;
  return x > kMax || x < -kMax;
}

size_t rune_count(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size();) {
    i += static_cast<size_t>(go::decode_rune(s, i).width);
    ++n;
  }
  return n;
}

class Printer {
 public:
  std::string buf;

  void clear_flags() {
    plus = minus = sharp = space = zero = plus_v = sharp_v = false;
    wid_present = prec_present = false;
    wid = prec = 0;
  }

  // printArg: one operand with one verb.
  void print_arg(const Value& arg, char32_t verb) {
    arg_ = arg.unwrapped();
    has_value_ = false;
    if (!arg_.valid()) {
      if (verb == 'T' || verb == 'v') {
        pad("<nil>");
      } else {
        bad_verb(verb);
      }
      return;
    }
    if (verb == 'T') {
      fmt_s(arg_.type_name());
      return;
    }
    if (verb == 'p') {
      bad_verb(verb);
      return;
    }
    switch (arg_.kind()) {
      case Kind::kBool:
        fmt_bool(arg_.as_bool(), verb);
        return;
      case Kind::kFloat:
        fmt_float_verb(arg_.as_float(), verb);
        return;
      case Kind::kComplex:
        fmt_complex(arg_.as_complex(), verb);
        return;
      case Kind::kInt:
        fmt_integer_verb(static_cast<uint64_t>(arg_.as_int()), !arg_.is_unsigned(), verb);
        return;
      case Kind::kString:
        if (!arg_.is_html()) {
          fmt_string(arg_.as_string(), verb);
          return;
        }
        break;
      case Kind::kTime:
        if (handle_stringer(arg_, verb)) return;
        break;
      default:
        break;
    }
    print_value(arg_, verb, 0);
  }

  bool plus = false, minus = false, sharp = false, space = false, zero = false, plus_v = false, sharp_v = false;
  bool wid_present = false, prec_present = false;
  int wid = 0, prec = 0;

 private:
  Value arg_;    // p.arg
  Value value_;  // p.value
  bool has_value_ = false;

  void write_padding(int n) {
    if (n <= 0) return;
    buf.append(static_cast<size_t>(n), zero ? '0' : ' ');
  }

  void pad(std::string_view s) {
    if (!wid_present || wid == 0) {
      buf += s;
      return;
    }
    const int width = wid - static_cast<int>(rune_count(s));
    if (!minus) {
      write_padding(width);
      buf += s;
    } else {
      buf += s;
      write_padding(width);
    }
  }

  void bad_verb(char32_t verb) {
    buf += "%!";
    go::append_utf8(buf, static_cast<int32_t>(verb));
    buf += '(';
    if (arg_.valid()) {
      buf += arg_.type_name();
      buf += '=';
      print_arg(arg_, 'v');
    } else if (has_value_ && value_.valid()) {
      buf += value_.type_name();
      buf += '=';
      print_value(value_, 'v', 0);
    } else {
      buf += "<nil>";
    }
    buf += ')';
  }

  bool handle_stringer(const Value& v, char32_t verb) {
    // time.Time implements fmt.Stringer: used for %v %s %x %X %q.
    if (verb != 'v' && verb != 's' && verb != 'x' && verb != 'X' && verb != 'q') return false;
    const auto& t = v.as_time();
    fmt_string(t ? go_time_string(*t) : "<nil>", verb);
    return true;
  }

  void fmt_bool(bool b, char32_t verb) {
    if (verb == 't' || verb == 'v') {
      pad(b ? "true" : "false");
    } else {
      bad_verb(verb);
    }
  }

  void fmt_s(std::string_view s) {
    if (prec_present) {
      size_t i = 0;
      for (int n = 0; n < prec && i < s.size(); ++n) i += static_cast<size_t>(go::decode_rune(s, i).width);
      s = s.substr(0, i);
    }
    pad(s);
  }

  void fmt_sx(std::string_view s, const char* digits) {
    size_t length = s.size();
    if (prec_present && static_cast<size_t>(prec) < length) length = static_cast<size_t>(prec);
    int width = 2 * static_cast<int>(length);
    if (width > 0) {
      if (space) {
        if (sharp) width *= 2;
        width += static_cast<int>(length) - 1;
      } else if (sharp) {
        width += 2;
      }
    } else {
      if (wid_present) write_padding(wid);
      return;
    }
    if (wid_present && wid > width && !minus) write_padding(wid - width);
    if (sharp) {
      buf += '0';
      buf += digits[16];
    }
    for (size_t i = 0; i < length; ++i) {
      if (space && i > 0) {
        buf += ' ';
        if (sharp) {
          buf += '0';
          buf += digits[16];
        }
      }
      const auto c = static_cast<unsigned char>(s[i]);
      buf += digits[c >> 4];
      buf += digits[c & 0xF];
    }
    if (wid_present && wid > width && minus) write_padding(wid - width);
  }

  void fmt_q(std::string_view s) {
    if (prec_present) {
      size_t i = 0;
      for (int n = 0; n < prec && i < s.size(); ++n) i += static_cast<size_t>(go::decode_rune(s, i).width);
      s = s.substr(0, i);
    }
    if (sharp && can_backquote(s)) {
      std::string quoted = "`";
      quoted += s;
      quoted += '`';
      pad(quoted);
      return;
    }
    pad(plus ? ascii_quote(s) : go::quote(s));
  }

  // strconv.QuoteToASCII: Quote with every non-ASCII rune escaped.
  static std::string ascii_quote(std::string_view s) {
    const std::string q = go::quote(s);
    std::string out;
    for (size_t i = 0; i < q.size();) {
      const go::Rune r = go::decode_rune(q, i);
      if (r.r < 0x80) {
        out += q[i];
      } else {
        char buf[16];
        std::snprintf(buf, sizeof buf, r.r < 0x10000 ? "\\u%04x" : "\\U%08x", static_cast<unsigned>(r.r));
        out += buf;
      }
      i += static_cast<size_t>(r.width);
    }
    return out;
  }

  static bool can_backquote(std::string_view s) {
    for (size_t i = 0; i < s.size();) {
      const go::Rune r = go::decode_rune(s, i);
      if (r.r == 0xFFFD && r.width == 1) return false;
      if (r.r == '`' || r.r == 0xFEFF) return false;
      if (r.r < ' ' && r.r != '\t') return false;
      if (r.r == 0x7F) return false;
      i += static_cast<size_t>(r.width);
    }
    return true;
  }

  void fmt_string(const std::string& s, char32_t verb) {
    switch (verb) {
      case 'v':
        if (sharp_v) {
          fmt_q(s);
        } else {
          fmt_s(s);
        }
        return;
      case 's':
        fmt_s(s);
        return;
      case 'x':
        fmt_sx(s, kLowerHex);
        return;
      case 'X':
        fmt_sx(s, kUpperHex);
        return;
      case 'q':
        fmt_q(s);
        return;
      default:
        bad_verb(verb);
    }
  }

  void fmt_integer(uint64_t u, int base, bool is_signed, char32_t verb, const char* digits) {
    const bool negative = is_signed && static_cast<int64_t>(u) < 0;
    if (negative) u = 0 - u;
    int p = 0;
    if (prec_present) {
      p = prec;
      if (p == 0 && u == 0) {
        const bool old = zero;
        zero = false;
        write_padding(wid);
        zero = old;
        return;
      }
    } else if (zero && wid_present) {
      p = wid;
      if (negative || plus || space) --p;
    }
    std::string rev;  // digits, least significant first
    if (u == 0) rev += '0';
    while (u > 0) {
      rev += digits[u % static_cast<uint64_t>(base)];
      u /= static_cast<uint64_t>(base);
    }
    while (static_cast<int>(rev.size()) < p) rev += '0';
    if (sharp) {
      if (base == 2) {
        rev += "b0";
      } else if (base == 8) {
        if (rev.back() != '0') rev += '0';
      } else if (base == 16) {
        rev += digits[16];
        rev += '0';
      }
    }
    if (verb == 'O') rev += "o0";
    if (negative) {
      rev += '-';
    } else if (plus) {
      rev += '+';
    } else if (space) {
      rev += ' ';
    }
    const std::string out(rev.rbegin(), rev.rend());
    const bool old = zero;
    zero = false;
    pad(out);
    zero = old;
  }

  void fmt_integer_verb(uint64_t v, bool is_signed, char32_t verb) {
    switch (verb) {
      case 'v':
      case 'd':
        fmt_integer(v, 10, is_signed, verb, kLowerHex);
        return;
      case 'b':
        fmt_integer(v, 2, is_signed, verb, kLowerHex);
        return;
      case 'o':
      case 'O':
        fmt_integer(v, 8, is_signed, verb, kLowerHex);
        return;
      case 'x':
        fmt_integer(v, 16, is_signed, verb, kLowerHex);
        return;
      case 'X':
        fmt_integer(v, 16, is_signed, verb, kUpperHex);
        return;
      case 'c': {
        std::string s;
        const uint64_t r = is_signed && static_cast<int64_t>(v) < 0 ? 0xFFFD : v;
        go::append_utf8(s, r > 0x10FFFF ? 0xFFFD : static_cast<int32_t>(r));
        pad(s);
        return;
      }
      case 'q': {
        const uint64_t r = is_signed && static_cast<int64_t>(v) < 0 ? 0xFFFD : v;
        pad(go::quote_rune(r > 0x10FFFF ? 0xFFFD : static_cast<int32_t>(r)));
        return;
      }
      case 'U': {
        char tmp[32];
        std::snprintf(tmp, sizeof tmp, "U+%04llX", static_cast<unsigned long long>(v));
        pad(tmp);
        return;
      }
      default:
        bad_verb(verb);
    }
  }

  // format.go fmtFloat.
  void fmt_float(double v, char verb, int p) {
    if (prec_present) p = prec;
    std::string num = go::format_float(v, verb, p);
    if (num[0] != '-' && num[0] != '+') num.insert(num.begin(), '+');
    if (space && num[0] == '+' && !plus) num[0] = ' ';
    if (num[1] == 'I' || num[1] == 'N') {
      const bool old = zero;
      zero = false;
      if (num[1] == 'N' && !space && !plus) num.erase(0, 1);
      pad(num);
      zero = old;
      return;
    }
    if (plus || num[0] != '+') {
      if (zero && wid_present && wid > static_cast<int>(num.size())) {
        buf += num[0];
        write_padding(wid - static_cast<int>(num.size()));
        buf.append(num, 1);
        return;
      }
      pad(num);
      return;
    }
    pad(std::string_view(num).substr(1));
  }

  void fmt_float_verb(double v, char32_t verb) {
    switch (verb) {
      case 'v':
        fmt_float(v, 'g', -1);
        return;
      case 'b':
      case 'g':
      case 'G':
      case 'x':
      case 'X':
        fmt_float(v, static_cast<char>(verb), -1);
        return;
      case 'f':
      case 'e':
      case 'E':
        fmt_float(v, static_cast<char>(verb), 6);
        return;
      case 'F':
        fmt_float(v, 'f', 6);
        return;
      default:
        bad_verb(verb);
    }
  }

  void fmt_complex(std::complex<double> c, char32_t verb) {
    switch (verb) {
      case 'v':
      case 'b':
      case 'g':
      case 'G':
      case 'x':
      case 'X':
      case 'f':
      case 'F':
      case 'e':
      case 'E': {
        const bool old_plus = plus;
        buf += '(';
        fmt_float_verb(c.real(), verb);
        plus = true;
        fmt_float_verb(c.imag(), verb);
        buf += "i)";
        plus = old_plus;
        return;
      }
      default:
        bad_verb(verb);
    }
  }

  // printValue: reflection-driven printing of composite values.
  void print_value(Value value, char32_t verb, int depth) {  // by value: it may alias arg_
    if (depth > 0 && value.valid() && !value.iface() && value.kind() == Kind::kTime) {
      arg_ = value;
      if (handle_stringer(value, verb)) return;
    }
    arg_ = Value();
    value_ = value;
    has_value_ = true;
    if (value.iface()) {  // reflect.Interface
      if (!value.valid()) {
        buf += sharp_v ? "interface {}(nil)" : "<nil>";
        return;
      }
      print_value(value.unwrapped(), verb, depth + 1);
      return;
    }
    switch (value.kind()) {
      case Kind::kInvalid:
        if (depth == 0) {
          buf += "<invalid reflect.Value>";
        } else if (verb == 'v') {
          buf += "<nil>";
        } else {
          bad_verb(verb);
        }
        return;
      case Kind::kBool:
        fmt_bool(value.as_bool(), verb);
        return;
      case Kind::kInt:
        fmt_integer_verb(static_cast<uint64_t>(value.as_int()), !value.is_unsigned(), verb);
        return;
      case Kind::kFloat:
        fmt_float_verb(value.as_float(), verb);
        return;
      case Kind::kComplex:
        fmt_complex(value.as_complex(), verb);
        return;
      case Kind::kString:
        fmt_string(value.as_string(), verb);
        return;
      case Kind::kMap: {
        buf += sharp_v ? value.type_name() + "{" : "map[";
        bool first = true;
        for (const auto& [k, v] : value.as_map().entries) {
          if (!first) buf += sharp_v ? ", " : " ";
          first = false;
          print_value(Value::string(k), verb, depth + 1);
          buf += ':';
          print_value(v, verb, depth + 1);
        }
        buf += sharp_v ? '}' : ']';
        return;
      }
      case Kind::kStruct: {
        if (sharp_v) buf += value.type_name();
        buf += '{';
        bool first = true;
        for (const auto& [name, v] : value.as_struct().fields) {
          if (!first) buf += sharp_v ? ", " : " ";
          first = false;
          if (plus_v || sharp_v) buf += name + ":";
          print_value(v, verb, depth + 1);
        }
        buf += '}';
        return;
      }
      case Kind::kList: {
        if (sharp_v)
          buf += value.type_name() + "{";
        else
          buf += '[';
        bool first = true;
        for (const auto& v : value.as_list()) {
          if (!first) buf += sharp_v ? ", " : " ";
          first = false;
          print_value(v, verb, depth + 1);
        }
        buf += sharp_v ? '}' : ']';
        return;
      }
      case Kind::kQueryResult: {
        const auto& r = value.as_query_result();
        buf += '[';
        if (r) {
          bool first = true;
          for (const auto& s : *r) {
            if (!first) buf += ' ';
            first = false;
            print_value(Value::sample(s), verb, depth + 1);
          }
        }
        buf += ']';
        return;
      }
      case Kind::kSample: {
        const auto& s = value.as_sample();
        if (!s) {
          if (verb == 'v') {
            pad("<nil>");
          } else {
            bad_verb(verb);
          }
          return;
        }
        buf += '&';
        print_value(Value::structure({{"Labels", Value::string_map(s->labels)}, {"Value", Value::number(s->value)}}),
                    verb, depth + 1);
        return;
      }
      case Kind::kTime: {
        const auto& t = value.as_time();
        fmt_string(t ? go_time_string(*t) : "<nil>", verb);
        return;
      }
    }
  }
};

}  // namespace

std::string sprint(const std::vector<Value>& args) {
  Printer p;
  bool prev_string = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const Value a = args[i].unwrapped();
    const bool is_string = a.kind() == Kind::kString;
    if (i > 0 && !is_string && !prev_string) p.buf += ' ';
    p.clear_flags();
    p.print_arg(a, 'v');
    prev_string = is_string;
  }
  return p.buf;
}

std::string sprintln(const std::vector<Value>& args) {
  Printer p;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) p.buf += ' ';
    p.clear_flags();
    p.print_arg(args[i], 'v');
  }
  p.buf += '\n';
  return p.buf;
}

namespace {

struct NumParse {
  int num = 0;
  bool is_num = false;
  size_t newi = 0;
};

NumParse parse_num(std::string_view s, size_t start, size_t end) {
  NumParse r;
  r.newi = start;
  if (start >= end) {
    r.newi = end;
    return r;
  }
  for (; r.newi < end && s[r.newi] >= '0' && s[r.newi] <= '9'; ++r.newi) {
    if (too_large(r.num)) return NumParse{0, false, end};
    r.num = r.num * 10 + (s[r.newi] - '0');
    r.is_num = true;
  }
  return r;
}

bool int_from_arg(const std::vector<Value>& a, size_t& arg_num, int& num) {
  bool is_int = false;
  num = 0;
  if (arg_num < a.size()) {
    const Value v = a[arg_num].unwrapped();
    if (v.kind() == Kind::kInt) {
      num = static_cast<int>(v.as_int());
      is_int = static_cast<int64_t>(num) == v.as_int();
    }
    ++arg_num;
    if (too_large(num)) {
      num = 0;
      is_int = false;
    }
  }
  return is_int;
}

}  // namespace

std::string sprintf(std::string_view format, const std::vector<Value>& a) {
  Printer p;
  const size_t end = format.size();
  size_t arg_num = 0;
  bool after_index = false;
  bool reordered = false;
  bool good_arg_num = true;

  // argNumber: an explicit [n] argument index at format[i].
  auto arg_number = [&](size_t i, bool& found) -> size_t {
    found = false;
    if (i >= end || format[i] != '[') return i;
    reordered = true;
    std::string_view f = format.substr(i);
    int index = 0;
    size_t wid = 1;
    bool ok = false;
    if (f.size() >= 3) {
      for (size_t k = 1; k < f.size(); ++k) {
        if (f[k] == ']') {
          NumParse n = parse_num(f, 1, k);
          if (!n.is_num || n.newi != k) {
            wid = k + 1;
          } else {
            index = n.num - 1;
            wid = k + 1;
            ok = true;
          }
          break;
        }
      }
    }
    if (ok && index >= 0 && static_cast<size_t>(index) < a.size()) {
      arg_num = static_cast<size_t>(index);
      found = true;
      return i + wid;
    }
    good_arg_num = false;
    found = ok;
    return i + wid;
  };

  for (size_t i = 0; i < end;) {
    good_arg_num = true;
    const size_t lasti = i;
    while (i < end && format[i] != '%') ++i;
    if (i > lasti) p.buf.append(format.substr(lasti, i - lasti));
    if (i >= end) break;
    ++i;  // past '%'
    p.clear_flags();
    bool simple_done = false;
    for (; i < end; ++i) {
      const char c = format[i];
      if (c == '#') {
        p.sharp = true;
      } else if (c == '0') {
        p.zero = !p.minus;
      } else if (c == '+') {
        p.plus = true;
      } else if (c == '-') {
        p.minus = true;
        p.zero = false;
      } else if (c == ' ') {
        p.space = true;
      } else {
        if (c >= 'a' && c <= 'z' && arg_num < a.size()) {
          if (c == 'v') {
            p.sharp_v = p.sharp;
            p.sharp = false;
            p.plus_v = p.plus;
            p.plus = false;
          }
          p.print_arg(a[arg_num], static_cast<char32_t>(c));
          ++arg_num;
          ++i;
          simple_done = true;
        }
        break;
      }
    }
    if (simple_done) continue;

    i = arg_number(i, after_index);
    if (i < end && format[i] == '*') {
      ++i;
      p.wid_present = int_from_arg(a, arg_num, p.wid);
      if (!p.wid_present) p.buf += "%!(BADWIDTH)";
      if (p.wid < 0) {
        p.wid = -p.wid;
        p.minus = true;
        p.zero = false;
      }
      after_index = false;
    } else {
      NumParse n = parse_num(format, i, end);
      p.wid = n.num;
      p.wid_present = n.is_num;
      i = n.newi;
      if (after_index && p.wid_present) good_arg_num = false;
    }
    if (i + 1 < end && format[i] == '.') {
      ++i;
      if (after_index) good_arg_num = false;
      i = arg_number(i, after_index);
      if (i < end && format[i] == '*') {
        ++i;
        p.prec_present = int_from_arg(a, arg_num, p.prec);
        if (p.prec < 0) {
          p.prec = 0;
          p.prec_present = false;
        }
        if (!p.prec_present) p.buf += "%!(BADPREC)";
        after_index = false;
      } else {
        NumParse n = parse_num(format, i, end);
        p.prec = n.num;
        p.prec_present = n.is_num;
        i = n.newi;
        if (!p.prec_present) {
          p.prec = 0;
          p.prec_present = true;
        }
      }
    }
    if (!after_index) i = arg_number(i, after_index);
    if (i >= end) {
      p.buf += "%!(NOVERB)";
      break;
    }
    const go::Rune r = go::decode_rune(format, i);
    const auto verb = static_cast<char32_t>(r.r);
    i += static_cast<size_t>(r.width);
    if (verb == '%') {
      p.buf += '%';
    } else if (!good_arg_num) {
      p.buf += "%!";
      go::append_utf8(p.buf, r.r);
      p.buf += "(BADINDEX)";
    } else if (arg_num >= a.size()) {
      p.buf += "%!";
      go::append_utf8(p.buf, r.r);
      p.buf += "(MISSING)";
    } else {
      if (verb == 'v') {
        p.sharp_v = p.sharp;
        p.sharp = false;
        p.plus_v = p.plus;
        p.plus = false;
      }
      p.print_arg(a[arg_num], verb);
      ++arg_num;
    }
  }
  if (!reordered && arg_num < a.size()) {
    p.clear_flags();
    p.buf += "%!(EXTRA ";
    for (size_t k = arg_num; k < a.size(); ++k) {
      if (k > arg_num) p.buf += ", ";
      const Value v = a[k].unwrapped();
      if (!v.valid()) {
        p.buf += "<nil>";
      } else {
        p.buf += v.type_name();
        p.buf += '=';
        p.print_arg(v, 'v');
      }
    }
    p.buf += ')';
  }
  return p.buf;
}

}  // namespace llmon::rules::gofmt
