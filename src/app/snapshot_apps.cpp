#include "app/snapshot_apps.h"

#include "app/commands.h"
#include "app/scrape_setup.h"
#include "base/file_reader.h"
#include "config/flag_names.h"
#include "scrape/app_headline.h"

namespace llmon::app {
namespace {

std::string label(const std::vector<model::Label>& ls, std::string_view name) {
  for (const auto& l : ls)
    if (l.name == name) return l.value;
  return "";
}

}  // namespace

std::unique_ptr<SnapshotApps> SnapshotApps::create(const config::Settings& s, const model::Snapshot& first,
                                                   int64_t now_ms, std::vector<std::string>& problems) {
  const std::string path = s.get(config::flag::kScrapeConfig);
  if (path.empty() && s.get(config::flag::kScrapeDiscover).empty()) return nullptr;
  auto apps = std::unique_ptr<SnapshotApps>(new SnapshotApps());
  std::optional<scrape::ScrapeFile> file;
  if (!path.empty()) {
    std::string text;
    if (Status st = base::read_file(path, text); !st) {
      problems.push_back("--scrape.config: " + path + ": " + st.message());
    } else if (auto parsed = scrape::parse_scrape_config(text, path); !parsed) {
      problems.push_back("--scrape.config: " + parsed.error());
    } else {
      file = std::move(*parsed);
    }
  }
  auto snap = std::make_shared<const model::Snapshot>(first);
  std::vector<scrape::OneShotJob> extra;
  auto jobs = make_discoverers(
      s, [snap] { return snap; }, 0);
  if (!jobs) {
    problems.push_back(jobs.error());
  } else {
    for (DiscoveryJob& j : *jobs) {
      (void)j.discoverer->refresh(now_ms);
      for (const auto& e : j.discoverer->errors()) problems.push_back(j.config.job_name + ": " + e);
      extra.push_back({j.config, j.discoverer->groups()});
    }
  }
  apps->targets_ = scrape::oneshot_targets(file ? &*file : nullptr, extra, now_ms, problems);
  return apps;
}

void SnapshotApps::fetch_first() {
  first_ = scrape::fetch_pages(targets_, std::string("llmon/") + kVersion, timeout_ms_);
}

void SnapshotApps::fetch_second() {
  second_ = scrape::fetch_pages(targets_, std::string("llmon/") + kVersion, timeout_ms_);
}

std::vector<summary::AppRow> SnapshotApps::rows(double seconds_apart) const {
  std::vector<summary::AppRow> out;
  for (size_t i = 0; i < targets_.size(); ++i) {
    const scrape::Target& t = targets_[i].target;
    summary::AppRow r;
    r.job = t.job;
    r.instance = label(t.labels, "instance");
    r.url = t.scrape_url;
    r.pid = label(t.labels, "pid");
    r.command = label(t.labels, "command");
    r.pod = label(t.labels, "pod");
    r.namespace_ = label(t.labels, "namespace");
    const Expected<scrape::Page>* after = i < second_.size() ? &second_[i] : nullptr;
    const Expected<scrape::Page>* before = i < first_.size() ? &first_[i] : nullptr;
    if (!after || !*after) {  // the second fetch failed: fall back on the first alone
      std::swap(after, before);
      before = nullptr;
    }
    if (!after || !*after) {
      r.error = after ? after->error() : "not fetched";
      out.push_back(std::move(r));
      continue;
    }
    scrape::AppPage a{(*after)->body, (*after)->content_type};
    std::optional<scrape::AppPage> b;
    if (before && *before) b = scrape::AppPage{(*before)->body, (*before)->content_type};
    auto h = scrape::app_headline(b ? &*b : nullptr, a, seconds_apart);
    if (!h) {
      r.error = h.error();
    } else {
      r.up = true;
      r.engine = h->engine;
      r.kind = h->kind;
      r.models = h->models;
      r.values = h->values;
      r.quantiles_since_start = h->quantiles_since_start;
      r.samples = h->samples;
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace llmon::app
