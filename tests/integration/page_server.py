#!/usr/bin/env python3
"""Serves recorded exposition pages for the scrape tests, on 127.0.0.1.

Usage: page_server.py DIR PORT

  GET /NAME        DIR/NAME.prom as text/plain; version=0.0.4,
                   DIR/NAME.om as application/openmetrics-text; version=1.0.0, or
                   DIR/NAME.json as application/json (a kubelet pod list)
                   (gzip-encoded when the request accepts gzip)
  GET /auth/NAME   the same, only with basic auth "scraper:s3cret" (else 401)
  GET /echo?...    a page with one series whose label is the raw query string
  GET /status/N    answers status N with a short body
Every request's path and Accept / Accept-Encoding / Authorization /
User-Agent headers are appended, one JSON line each, to DIR/../requests.log
when the environment sets PAGE_SERVER_LOG to a path.
"""
import base64
import gzip
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

ROOT = sys.argv[1]
PORT = int(sys.argv[2])
LOG = os.environ.get("PAGE_SERVER_LOG")
AUTH = "Basic " + base64.b64encode(b"scraper:s3cret").decode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, code, ctype, body):
        if "gzip" in self.headers.get("Accept-Encoding", "") and code == 200:
            body = gzip.compress(body)
            gz = True
        else:
            gz = False
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        if gz:
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urlsplit(self.path)
        if LOG:
            with open(LOG, "a") as f:
                f.write(json.dumps({"path": url.path, "query": url.query,
                                    "accept": self.headers.get("Accept", ""),
                                    "accept_encoding": self.headers.get("Accept-Encoding", ""),
                                    "authorization": self.headers.get("Authorization", ""),
                                    "user_agent": self.headers.get("User-Agent", "")}) + "\n")
        path = url.path.strip("/")
        if path == "echo":
            q = url.query.replace("\\", "\\\\").replace('"', '\\"')
            return self.send(200, "text/plain; version=0.0.4", ('echo_query{query="%s"} 1\n' % q).encode())
        if path.startswith("status/"):
            return self.send(int(path[7:]), "text/plain", b"no page here\n")
        if path.startswith("auth/"):
            if self.headers.get("Authorization", "") != AUTH:
                return self.send(401, "text/plain", b"unauthorized\n")
            path = path[5:]
        for ext, ctype in ((".prom", "text/plain; version=0.0.4; charset=utf-8"),
                           (".om", "application/openmetrics-text; version=1.0.0; charset=utf-8"),
                           (".json", "application/json")):
            f = os.path.join(ROOT, os.path.basename(path) + ext)
            if os.path.isfile(f):
                with open(f, "rb") as fh:
                    return self.send(200, ctype, fh.read())
        self.send(404, "text/plain", b"not found\n")


ThreadingHTTPServer.allow_reuse_address = True
ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
