#!/usr/bin/python3
"""A stand-in for an OpenAI-compatible chat-completions server (vLLM's or
llama.cpp's), for `llmon diagnose --explain` tests: neither is packaged in
Debian 12. Serves GET /v1/models ({"data": [{"id": MODEL}]}) and POST
/v1/chat/completions, answering with a fixed explanation that quotes the
first finding's kind it was sent; every request body is appended to LOG as
one JSON line. With STATUS other than 200 it answers that status and an
OpenAI-style {"error": {"message": ...}}.

    fake_chat_server.py PORT LOG [MODEL] [STATUS]
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

PORT, LOG = int(sys.argv[1]), sys.argv[2]
MODEL = sys.argv[3] if len(sys.argv) > 3 else "test-model"
STATUS = int(sys.argv[4]) if len(sys.argv) > 4 else 200


class Handler(BaseHTTPRequestHandler):
    def reply(self, status, obj):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/v1/models":
            self.reply(200, {"object": "list", "data": [{"id": MODEL, "object": "model"}]})
        else:
            self.reply(404, {"error": {"message": "not found"}})

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(n)
        with open(LOG, "a") as f:
            f.write(json.dumps({"path": self.path, "auth": self.headers.get("Authorization", ""),
                                "body": json.loads(raw)}) + "\n")
        if self.path != "/v1/chat/completions":
            return self.reply(404, {"error": {"message": "not found"}})
        if STATUS != 200:
            return self.reply(STATUS, {"error": {"message": "model overloaded"}})
        req = json.loads(raw)
        user = req["messages"][-1]["content"]
        data = json.loads(user[user.index("{"):])
        kind = data["findings"][0]["kind"] if data["findings"] else "none"
        text = f"Act on {kind} first: the evidence shows it. (fake explanation by {req['model']})"
        self.reply(200, {"id": "x", "object": "chat.completion", "model": req["model"],
                         "choices": [{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant", "content": text}}]})

    def log_message(self, *args):
        pass


HTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
