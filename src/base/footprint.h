// The agent's resident memory after start-up. Start-up runs a lot of code
// once (static initialisers of every collector, the flag table, YAML and
// PromQL parsers for the rule pack, Hyperscan's compiler for the log rules:
// 4 MB of libhs alone) and frees megabytes of compile-time heap that glibc
// keeps in its arenas. An agent that then runs for months should carry
// neither.
//
// release_free_heap(): hands the free memory of every malloc arena back to
// the kernel (glibc malloc_trim(0)).
// release_code_pages(): drops the process's mappings of the pages of its
// file-backed executable segments (MADV_DONTNEED on each r-xp mapping of a
// file). They are clean copies of the files: they stay in the page cache,
// where the kernel may reclaim them, and the code the agent keeps running
// faults back from there within a cycle, so resident code is what runs,
// not what ran once. Only executable segments: data and RELRO pages are
// never touched (a debugger's breakpoints set before the call are lost with
// their pages). Returns the number of mappings released (0 when
// /proc/self/maps is unreadable).
// The agent calls both once everything has started and after each reload.
// Safe from any thread at any time.
#pragma once

namespace llmon::base {

void release_free_heap();
int release_code_pages();

}  // namespace llmon::base
