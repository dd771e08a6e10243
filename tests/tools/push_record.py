#!/usr/bin/python3
"""Records the HTTP requests tests/tools/push_client.py makes, for replaying
them into the push store without a server (tests/scrape/push_replay_test.cpp).

    /usr/bin/python3 tests/tools/push_record.py OUT_FILE

Starts a throw-away HTTP server on a free 127.0.0.1 port that answers 200
(202 for DELETE) to everything, runs the client's steps against it, and
writes each request as a line "METHOD RAW_PATH BODY_LENGTH", then the body
bytes, then a newline. Regenerate the fixture with this when push_client.py
changes, then refresh the expected pages as tests/fixtures/push/README.md says.
"""

import http.server
import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import push_client  # noqa: E402

records = []


class Handler(http.server.BaseHTTPRequestHandler):
    def _record(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        records.append((self.command, self.path, body))
        self.send_response(202 if self.command == "DELETE" else 200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_PUT = do_POST = do_DELETE = _record

    def log_message(self, *args):
        pass


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    for _, _, run in push_client.steps(url):
        run()
    server.shutdown()
    with open(sys.argv[1], "wb") as f:
        for method, path, body in records:
            f.write(f"{method} {path} {len(body)}\n".encode())
            f.write(body)
            f.write(b"\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
