#!/usr/bin/env python3
"""Checks the module layering of src/ against docs/architecture.md.

The "Modules" table in docs/architecture.md names each module (a folder under
src/, one static library) and the modules it may use directly ("Depends on").
This check fails when
  * the table's dependency graph has a cycle, or a module depends on one
    listed below it (the table is ordered from leaves to app);
  * a file under src/<a>/ includes a header "<b>/..." of another module b that
    is not reachable from a through the table (a layering violation: b is
    above a, or unrelated);
  * CMakeLists.txt's llmon_module(<a> DEPS llmon_<b> ...) lines disagree with
    the table (a module missing on either side, or a different set of direct
    module dependencies);
  * a folder under src/ holds sources but is in neither the table nor CMake.
Usage: module_deps.py REPO_ROOT. Prints one line per problem; exit 1 if any.
"""
import os
import re
import sys


def parse_table(path):
    text = open(path, encoding="utf-8").read()
    m = re.search(r"^## Modules\n(.*?)(?=^## )", text, re.S | re.M)
    if not m:
        sys.exit(f"{path}: no '## Modules' section")
    deps = {}
    order = []
    header = None
    for line in m.group(1).splitlines():
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = [c.lower() for c in cells]
            continue
        if set(line) <= set("|-: "):
            continue
        row = dict(zip(header, cells))
        name = row.get("module", "").strip("` ")
        if not name:
            continue
        dep_text = row.get("depends on", "")
        dep_text = re.sub(r"\(.*?\)", "", dep_text)  # parenthesised notes
        names = re.findall(r"`?([a-z][a-z0-9_]*)`?", dep_text)
        deps[name] = set(n for n in names if n not in ("none",))
        order.append(name)
    return deps, order


def parse_cmake(path):
    deps = {}
    text = open(path, encoding="utf-8").read()
    for m in re.finditer(r"llmon_module\(\s*([a-z0-9_]+)\s+DEPS([^)]*)\)", text):
        deps[m.group(1)] = set(re.findall(r"\bllmon_([a-z0-9_]+)\b", m.group(2)))
    return deps


def find_cycle(deps):
    state = {}

    def visit(n, stack):
        state[n] = 1
        for d in sorted(deps.get(n, ())):
            if state.get(d) == 1:
                return stack + [n, d]
            if d not in state:
                c = visit(d, stack + [n])
                if c:
                    return c
        state[n] = 2
        return None

    for n in sorted(deps):
        if n not in state:
            c = visit(n, [])
            if c:
                return c[c.index(c[-1]):]
    return None


def closure(deps, a):
    seen, todo = set(), list(deps.get(a, ()))
    while todo:
        d = todo.pop()
        if d not in seen:
            seen.add(d)
            todo.extend(deps.get(d, ()))
    return seen


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    table, order = parse_table(os.path.join(root, "docs", "architecture.md"))
    cmake = parse_cmake(os.path.join(root, "CMakeLists.txt"))
    problems = []

    for name in sorted(set(table) | set(cmake)):
        if name not in cmake:
            problems.append(f"docs/architecture.md: module {name} has no llmon_module() in CMakeLists.txt")
        elif name not in table:
            problems.append(f"CMakeLists.txt: module {name} is not in docs/architecture.md's module table")
        elif table[name] != cmake[name]:
            only_t = sorted(table[name] - cmake[name])
            only_c = sorted(cmake[name] - table[name])
            problems.append(f"{name}: direct dependencies differ: only in the table {only_t}, only in CMake {only_c}")
    for name, ds in sorted(table.items()):
        for d in sorted(ds - set(table)):
            problems.append(f"docs/architecture.md: {name} depends on unknown module {d}")
    for i, name in enumerate(order):
        for d in sorted(table[name] & set(order[i:])):
            problems.append(f"docs/architecture.md: {name} depends on {d}, which is not above it in the table")
    cycle = find_cycle(table)
    if cycle:
        problems.append("docs/architecture.md: dependency cycle " + " -> ".join(cycle))

    src = os.path.join(root, "src")
    include_re = re.compile(r'^\s*#\s*include\s+"([a-z0-9_]+)/[^"]+"', re.M)
    for mod in sorted(os.listdir(src)):
        mdir = os.path.join(src, mod)
        if not os.path.isdir(mdir):
            continue
        if mod not in table:
            problems.append(f"src/{mod}/: not a module in docs/architecture.md")
            continue
        allowed = closure(table, mod) | {mod}
        for dirpath, _, files in os.walk(mdir):
            for f in sorted(files):
                if not f.endswith((".h", ".cpp")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                text = open(path, encoding="utf-8", errors="replace").read()
                for m in include_re.finditer(text):
                    target = m.group(1)
                    if target in table and target not in allowed:
                        line = text.count("\n", 0, m.start()) + 1
                        problems.append(f"{rel}:{line}: includes {target}/, which {mod} may not depend on")

    for p in problems:
        print(p)
    print(f"module layering: {len(table)} modules, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
