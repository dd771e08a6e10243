#!/usr/bin/env python3
"""Bytes per sample of the Prometheus TSDB blocks under a directory.

Contract: walks ROOT; every directory holding both meta.json and index is a block. Sums over
the blocks the samples, series and chunks of meta.json's "stats", the size of index and of
every file in chunks/, and prints one JSON object: blocks, samples, series, chunks,
chunk_bytes, index_bytes, chunk_bytes_per_sample, chunk+index_bytes_per_sample and
samples_per_chunk. Reads only. Used by bench/tsdb_compare.sh (size and rss steps).
Usage: block_stats.py ROOT
"""
import json
import os
import sys


def dir_bytes(path):
    return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path)) if os.path.isdir(path) else 0


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__.strip().splitlines()[-1])
    total = dict.fromkeys(("blocks", "samples", "series", "chunks", "chunk_bytes", "index_bytes"), 0)
    for dirpath, _, files in os.walk(sys.argv[1]):
        if "meta.json" not in files or "index" not in files:
            continue
        with open(os.path.join(dirpath, "meta.json")) as f:
            stats = json.load(f).get("stats", {})
        total["blocks"] += 1
        total["samples"] += stats.get("numSamples", 0)
        total["series"] += stats.get("numSeries", 0)
        total["chunks"] += stats.get("numChunks", 0)
        total["index_bytes"] += os.path.getsize(os.path.join(dirpath, "index"))
        total["chunk_bytes"] += dir_bytes(os.path.join(dirpath, "chunks"))
    samples = max(1, total["samples"])
    total["chunk_bytes_per_sample"] = round(total["chunk_bytes"] / samples, 3)
    total["chunk+index_bytes_per_sample"] = round((total["chunk_bytes"] + total["index_bytes"]) / samples, 3)
    total["samples_per_chunk"] = round(samples / max(1, total["chunks"]), 1)
    print(json.dumps(total))


if __name__ == "__main__":
    main()
