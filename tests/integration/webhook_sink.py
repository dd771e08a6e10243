"""Webhook receiver for the integration tests: every POST to /NAME (slashes
become _) is checked to be JSON and appended as one line to DIR/NAME.jsonl;
while DIR/NAME.down exists the receiver answers 503 instead. GET answers ok
(readiness). Usage: webhook_sink.py PORT DIR"""
import http.server, json, os, sys
root = sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def name(self):
        return self.path.strip("/").replace("/", "_") or "root"
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        n = self.name()
        if os.path.exists(os.path.join(root, n + ".down")):
            self.send_response(503); self.end_headers(); return
        json.loads(body)
        with open(os.path.join(root, n + ".jsonl"), "ab") as f:
            f.write(body.replace(b"\n", b" ") + b"\n")
        self.send_response(200); self.end_headers()
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b"ok")
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
