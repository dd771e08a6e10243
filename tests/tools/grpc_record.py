#!/usr/bin/python3
"""Records what a gRPC server sends: a relay on a Unix socket that forwards
one connection to the server's socket and writes the server's bytes, as
received, to OUT. How tests/fixtures/kube/*.h2 were made:

  pod_resources_server.py up.sock pods.json &        # (--status 14 ... for the error one)
  grpc_record.py relay.sock up.sock OUT &
  <llmon's client> relay.sock                        # one call

Exits after the one connection closes.
"""
import os
import socket
import sys
import threading


def main():
    listen, upstream, out = sys.argv[1:4]
    if os.path.exists(listen):
        os.unlink(listen)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(listen)
    srv.listen(1)
    client, _ = srv.accept()
    up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    up.connect(upstream)
    recorded = bytearray()

    def pump(src, dst, keep):
        while True:
            b = src.recv(65536)
            if not b:
                break
            if keep:
                recorded.extend(b)
            dst.sendall(b)
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    t = threading.Thread(target=pump, args=(client, up, False))
    t.start()
    pump(up, client, True)
    t.join(5)
    with open(out, "wb") as f:
        f.write(recorded)


if __name__ == "__main__":
    main()
