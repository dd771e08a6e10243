#!/usr/bin/python3
"""A kubelet pod-resources server for tests: gRPC's own Python server
(python3-grpcio) serving v1.PodResourcesLister/List on a Unix socket, with
the messages compiled at run time from tests/fixtures/kube/podresources_v1.proto
(python3-grpc-tools' protoc writes a descriptor set; python3-protobuf builds
the classes from it).

  pod_resources_server.py SOCKET PODS.json [--status CODE] [--message TEXT]
                          [--ready FILE]

PODS.json: [{"name": "...", "namespace": "...", "containers": [{"name": "...",
"devices": [{"resource_name": "nvidia.com/gpu", "device_ids": ["GPU-..."]}],
"cpu_ids": [1, 2]}]}]. The file is reread on every call, so a test can change
the answer. --status answers every call with that gRPC status code instead.
--ready writes FILE once the socket listens. Stops on SIGTERM.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_DIR = os.path.join(HERE, "..", "fixtures", "kube")


def load_messages():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "set.pb")
        subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I" + PROTO_DIR,
                        "--descriptor_set_out=" + out, "podresources_v1.proto"],
                       check=True, cwd=PROTO_DIR)
        fds = descriptor_pb2.FileDescriptorSet()
        with open(out, "rb") as f:
            fds.ParseFromString(f.read())
    pool = descriptor_pool.DescriptorPool()
    for fd in fds.file:
        pool.Add(fd)
    def cls(name):
        d = pool.FindMessageTypeByName("v1." + name)
        if hasattr(message_factory, "GetMessageClass"):
            return message_factory.GetMessageClass(d)
        return message_factory.MessageFactory(pool).GetPrototype(d)
    return cls("ListPodResourcesRequest"), cls("ListPodResourcesResponse")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("socket")
    ap.add_argument("pods")
    ap.add_argument("--status", type=int, default=0)
    ap.add_argument("--message", default="")
    ap.add_argument("--ready")
    a = ap.parse_args()
    Req, Resp = load_messages()
    calls = [0]

    def list_call(request, context):
        calls[0] += 1
        if a.status:
            context.abort(grpc.StatusCode(next(c for c in grpc.StatusCode if c.value[0] == a.status)), a.message)
        with open(a.pods) as f:
            pods = json.load(f)
        resp = Resp()
        for p in pods:
            pr = resp.pod_resources.add(name=p["name"], namespace=p["namespace"])
            for c in p.get("containers", []):
                cr = pr.containers.add(name=c["name"])
                cr.cpu_ids.extend(c.get("cpu_ids", []))
                for d in c.get("devices", []):
                    cr.devices.add(resource_name=d["resource_name"], device_ids=d["device_ids"])
        return resp

    handler = grpc.method_handlers_generic_handler("v1.PodResourcesLister", {
        "List": grpc.unary_unary_rpc_method_handler(
            list_call, request_deserializer=Req.FromString, response_serializer=Resp.SerializeToString),
    })
    server = grpc.server(__import__("concurrent.futures").futures.ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port("unix:" + a.socket)
    server.start()
    if a.ready:
        with open(a.ready, "w") as f:
            f.write("ready\n")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    server.stop(0)
    print("calls=%d" % calls[0], file=sys.stderr)


if __name__ == "__main__":
    main()
