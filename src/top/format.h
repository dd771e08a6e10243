// Number formatting of `llmon top`'s cells: short, fixed-width friendly forms
// ("12.3G", "512M", "1.2M/s", "45%"). One place, so every panel agrees and
// tests pin the forms. Pure functions.
#pragma once

#include <optional>
#include <string>

namespace llmon::top {

// Binary units, at most 5 columns: "0", "999", "1.0K", "12.3G", "512G", "1.5T".
std::string bytes_short(double bytes);
std::string bytes_short(const std::optional<double>& bytes);  // "-" when absent
std::string rate_short(double bytes_per_s);                   // bytes_short + "/s"
// "45%" (rounded; "-" when absent).
std::string percent(const std::optional<double>& pct);
// printf with one optional value ("-" when absent): fmt1(temp, "%.0fC").
std::string fmt1(const std::optional<double>& v, const char* format);
// `s` cut or padded to exactly `width` columns (code points); cut text ends
// in `ellipsis` when one is given.
std::string fit(const std::string& s, int width, const char* ellipsis = "");
std::string fit_right(const std::string& s, int width);

}  // namespace llmon::top
