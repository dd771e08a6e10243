// The top diagnosis findings for `llmon snapshot` (docs/snapshot.md): the
// snapshot's two cycles are seconds of data, findings need minutes of
// history, so they come from a running agent's /api/v1/diagnosis over
// --window: the agent at --url, or, without --url, the one at
// --web.listen-address if it answers within a short timeout. No agent: no
// findings, and a note saying how to get them.
#pragma once

#include "config/settings.h"
#include "summary/host_summary.h"

namespace llmon::app {

// Fills s.findings / findings_source / findings_note.
void add_agent_findings(const config::Settings& settings, summary::HostSummary& s);

}  // namespace llmon::app
