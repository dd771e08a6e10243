#!/usr/bin/python3
"""Checks Kubernetes manifests against a committed subset of the upstream
OpenAPI definitions (tests/fixtures/kubernetes/openapi_subset.json), offline.

  k8s_schema_check.py [--schema FILE] DIR_OR_FILE...   (- : documents on stdin, e.g. kubectl kustomize's)

A directory is a kustomization: its kustomization.yaml is checked too and its
resources are followed (files and directories, as kustomize does). Each
document is checked by its apiVersion/kind: an unknown field, a wrong type, a
value outside an enum or a missing required field is an error at
FILE:LINE:COL with the field's path. Then the cross-references kubectl would
only find on a cluster: selectors that match their pod template, volume
mounts of declared volumes, named ports that exist, duplicate objects.
Prints every error and exits 1 if there was one; prints a summary otherwise.
"""
import argparse
import json
import os
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SCHEMA = os.path.join(HERE, "..", "fixtures", "kubernetes", "openapi_subset.json")

INT = "tag:yaml.org,2002:int"
STR = "tag:yaml.org,2002:str"
BOOL = "tag:yaml.org,2002:bool"
NULL = "tag:yaml.org,2002:null"
FLOAT = "tag:yaml.org,2002:float"
ARTICLE = {"string": "a string", "integer": "an integer", "boolean": "a boolean"}


class Checker:
    def __init__(self, schema):
        self.defs = schema["definitions"]
        self.kinds = schema["kinds"]
        self.errors = []

    def err(self, fname, node, path, msg):
        m = node.start_mark
        self.errors.append("%s:%d:%d: %s: %s" % (fname, m.line + 1, m.column + 1, path or "(document)", msg))

    def resolve(self, s):
        while "$ref" in s:
            s = self.defs[s["$ref"].split("/")[-1]]
        return s

    def check(self, fname, node, s, path):
        s = self.resolve(s)
        t = s.get("type")
        fmt = s.get("format")
        if fmt in ("int-or-string", "quantity"):
            if not (isinstance(node, yaml.ScalarNode) and node.tag in (INT, STR, FLOAT)):
                self.err(fname, node, path, "want an integer or a string")
            return
        if t == "object":
            if not isinstance(node, yaml.MappingNode):
                self.err(fname, node, path, "want an object")
                return
            props = s.get("properties")
            seen = set()
            for k, v in node.value:
                key = k.value
                sub = "%s.%s" % (path, key) if path else key
                if key in seen:
                    self.err(fname, k, sub, "field given twice")
                seen.add(key)
                if props is not None and key in props:
                    self.check(fname, v, props[key], sub)
                elif "additionalProperties" in s:
                    self.check(fname, v, s["additionalProperties"], sub)
                else:
                    self.err(fname, k, sub, "unknown field (not in %s)" % ", ".join(sorted(props or {})))
            for r in s.get("required", []):
                if r not in seen:
                    self.err(fname, node, path, "missing required field %s" % r)
            return
        if t == "array":
            if not isinstance(node, yaml.SequenceNode):
                self.err(fname, node, path, "want a list")
                return
            for i, item in enumerate(node.value):
                self.check(fname, item, s["items"], "%s[%d]" % (path, i))
            return
        if not isinstance(node, yaml.ScalarNode):
            self.err(fname, node, path, "want %s" % ARTICLE[t])
            return
        want = {"string": STR, "integer": INT, "boolean": BOOL}[t]
        if node.tag != want:
            self.err(fname, node, path, "want %s, not %r (%s)" % (ARTICLE[t], node.value, node.tag.split(":")[-1]))
            return
        if "enum" in s and node.value not in s["enum"]:
            self.err(fname, node, path, "%r is not one of %s" % (node.value, ", ".join(repr(e) for e in s["enum"])))

    def check_document(self, fname, node):
        if not isinstance(node, yaml.MappingNode):
            self.err(fname, node, "", "a document must be an object")
            return None
        top = {k.value: v for k, v in node.value}
        api = top.get("apiVersion")
        kind = top.get("kind")
        key = "%s/%s" % (api.value if api else "?", kind.value if kind else "?")
        if key not in self.kinds:
            self.err(fname, node, "", "apiVersion/kind %s is not in the schema subset" % key)
            return None
        self.check(fname, node, self.defs[self.kinds[key]], "")
        return yaml.safe_load(yaml.serialize(node))


def load(fname, checker):
    if fname == "-":
        text = sys.stdin.read()
    else:
        with open(fname) as f:
            text = f.read()
    try:
        return [n for n in yaml.compose_all(text) if n is not None]
    except yaml.YAMLError as e:
        checker.errors.append("%s: %s" % (fname, e))
        return []


def walk(path, checker, out, stack=()):
    """Collects (file, object) of a kustomization directory or a file."""
    path = path if path == "-" else os.path.normpath(path)
    if path in stack:
        checker.errors.append("%s: kustomization cycle" % path)
        return
    if path == "-" or os.path.isfile(path):
        for node in load(path, checker):
            obj = checker.check_document(path, node)
            if obj is not None:
                out.append((path, obj))
        return
    kfile = os.path.join(path, "kustomization.yaml")
    if not os.path.isfile(kfile):
        checker.errors.append("%s: neither a file nor a directory with kustomization.yaml" % path)
        return
    docs = load(kfile, checker)
    if len(docs) != 1:
        checker.errors.append("%s: want one document" % kfile)
        return
    k = checker.check_document(kfile, docs[0])
    if k is None:
        return
    start = len(out)
    for r in k.get("resources", []):
        walk(os.path.join(path, r), checker, out, stack + (path,))
    ns = k.get("namespace")
    if ns:
        for _, obj in out[start:]:
            if obj.get("kind") not in ("Namespace", "ClusterRole", "ClusterRoleBinding"):
                obj.setdefault("metadata", {})["namespace"] = ns


def cross_check(objs, checker):
    seen = {}
    by_kind = {}
    for fname, o in objs:
        md = o.get("metadata", {})
        ident = (o["kind"], md.get("namespace"), md.get("name"))
        if ident in seen:
            checker.errors.append("%s: %s %s/%s also in %s" % (fname, ident[0], ident[1], ident[2], seen[ident]))
        seen[ident] = fname
        by_kind.setdefault(o["kind"], []).append((fname, o))

    def matches(selector, labels):
        return all(labels.get(k) == v for k, v in (selector or {}).items())

    pod_templates = []
    for fname, ds in by_kind.get("DaemonSet", []):
        spec = ds["spec"]
        labels = spec["template"].get("metadata", {}).get("labels", {})
        if not matches(spec["selector"].get("matchLabels"), labels):
            checker.errors.append("%s: DaemonSet %s: spec.selector does not match the template's labels" %
                                  (fname, ds["metadata"]["name"]))
        pod = spec["template"]["spec"]
        volumes = {v["name"] for v in pod.get("volumes", [])}
        ports = set()
        for c in pod["containers"]:
            ports |= {p.get("name") for p in c.get("ports", []) if p.get("name")}
            for m in c.get("volumeMounts", []):
                if m["name"] not in volumes:
                    checker.errors.append("%s: container %s mounts undeclared volume %s" % (fname, c["name"], m["name"]))
            for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
                port = c.get(probe, {}).get("httpGet", {}).get("port")
                if isinstance(port, str) and port not in ports:
                    checker.errors.append("%s: container %s: %s names port %s, which it does not declare" %
                                          (fname, c["name"], probe, port))
        pod_templates.append((labels, ports))
    services = []
    for fname, svc in by_kind.get("Service", []):
        spec = svc.get("spec", {})
        sel = spec.get("selector")
        targets = [t for t in pod_templates if sel and matches(sel, t[0])]
        if sel and not targets:
            checker.errors.append("%s: Service %s selects no pod template" % (fname, svc["metadata"]["name"]))
        for p in spec.get("ports", []):
            tp = p.get("targetPort")
            if isinstance(tp, str) and not any(tp in t[1] for t in targets):
                checker.errors.append("%s: Service %s: targetPort %s is no container port's name" %
                                      (fname, svc["metadata"]["name"], tp))
        services.append((svc.get("metadata", {}).get("labels", {}), {p.get("name") for p in spec.get("ports", [])}))
    for fname, sm in by_kind.get("ServiceMonitor", []):
        sel = sm["spec"]["selector"].get("matchLabels")
        targets = [s for s in services if matches(sel, s[0])]
        if not targets:
            checker.errors.append("%s: ServiceMonitor %s selects no Service" % (fname, sm["metadata"]["name"]))
        for ep in sm["spec"].get("endpoints", []):
            if ep.get("port") and not any(ep["port"] in s[1] for s in targets):
                checker.errors.append("%s: ServiceMonitor %s: port %s is no Service port's name" %
                                      (fname, sm["metadata"]["name"], ep["port"]))
    for fname, pm in by_kind.get("PodMonitor", []):
        sel = pm["spec"]["selector"].get("matchLabels")
        targets = [t for t in pod_templates if matches(sel, t[0])]
        if not targets:
            checker.errors.append("%s: PodMonitor %s selects no pod template" % (fname, pm["metadata"]["name"]))
        for ep in pm["spec"].get("podMetricsEndpoints", []):
            if ep.get("port") and not any(ep["port"] in t[1] for t in targets):
                checker.errors.append("%s: PodMonitor %s: port %s is no container port's name" %
                                      (fname, pm["metadata"]["name"], ep["port"]))
    for fname, b in by_kind.get("ClusterRoleBinding", []):
        ref = b["roleRef"]
        if ref["kind"] == "ClusterRole" and ("ClusterRole", None, ref["name"]) not in seen:
            checker.errors.append("%s: ClusterRoleBinding %s: no ClusterRole %s" % (fname, b["metadata"]["name"],
                                                                                   ref["name"]))
        for s in b.get("subjects", []):
            if s["kind"] == "ServiceAccount" and ("ServiceAccount", s.get("namespace"), s["name"]) not in seen:
                checker.errors.append("%s: ClusterRoleBinding %s: no ServiceAccount %s/%s" %
                                      (fname, b["metadata"]["name"], s.get("namespace"), s["name"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--schema", default=DEFAULT_SCHEMA)
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args()
    with open(a.schema) as f:
        checker = Checker(json.load(f))
    total = 0
    for p in a.paths:
        objs = []
        walk(p, checker, objs)
        if not checker.errors:
            cross_check(objs, checker)
        total += len(objs)
        if not checker.errors:
            print("%s: %d objects: %s" % (p, len(objs), ", ".join(sorted("%s/%s" % (o["kind"], o["metadata"]["name"])
                                                                          for _, o in objs))))
    for e in checker.errors:
        print(e, file=sys.stderr)
    return 1 if checker.errors else 0


if __name__ == "__main__":
    sys.exit(main())
