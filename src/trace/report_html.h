// The self-contained HTML report of `llmon trace analyze --html`
// (docs/trace.md#html-report---html): one page, the report document of --json
// embedded as JSON and drawn by an inline script (charts as inline SVG, no
// external fonts, scripts or requests; a Content-Security-Policy of
// default-src 'none' forbids any). The page template is
// src/trace/report_page.html, compiled in by cmake/embed_files.cmake.
// Pure: text in, text out.
#pragma once

#include <string>
#include <string_view>

namespace llmon::trace {

// The page for a report document (the text report_json() returns). The
// JSON is embedded with '<', '>' and '&' written as \u escapes, so that no
// string of the trace can end the script element; it parses to the same
// document.
std::string report_html(std::string_view report_json_text);

// The template as compiled in (for tests).
std::string_view report_page_template();

}  // namespace llmon::trace
