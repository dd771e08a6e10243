#!/usr/bin/env python3
"""Independent decoder of docs/format/chunk.md (encodings 1-4), written from the document only.

Used by tests/tsdb/chunk_reference_test.cpp to check that the C++ codec and the format document
agree. Reads lines "HEX" (one chunk each) on stdin; writes one line per chunk: "t:bits t:bits ..."
(bits = the value's IEEE bits as 16 hex digits) or "ERR <reason>".
"""
import math, struct, sys

M64 = (1 << 64) - 1

class Bits:
    def __init__(self, data):
        self.data, self.pos = data, 0
    def bit(self):
        if self.pos >= len(self.data) * 8:
            raise ValueError("eof")
        b = (self.data[self.pos >> 3] >> (7 - (self.pos & 7))) & 1
        self.pos += 1
        return b
    def bits(self, n):
        v = 0
        for _ in range(n):
            v = (v << 1) | self.bit()
        return v

def dod(r, widths):
    i = 0
    while i < 4 and r.bit():
        i += 1
    n = widths[i]
    if n == 0:
        return 0
    x = r.bits(n)
    if n < 64 and x > (1 << (n - 1)):
        x -= 1 << n
    return x & M64

def s64(u):
    return u - (1 << 64) if u >> 63 else u

def f2b(v):
    return struct.unpack("<Q", struct.pack("<d", v))[0]

def b2f(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]

def representable(v, s):
    if v != v or v in (float("inf"), float("-inf")):
        return None
    x = v * float(10 ** s)
    if not abs(x) <= 2.0 ** 53:
        return None
    a = abs(x)
    n = math.floor(a)
    if a - n >= 0.5:  # exact for doubles; halves away from zero
        n += 1
    if x < 0:
        n = -n
    if abs(n) > 2 ** 53:
        return None
    back = float(n) / float(10 ** s)
    return n if f2b(back) == f2b(v) else None

class Window:
    def __init__(self):
        self.set, self.lead, self.sig = False, 0, 0
    def tail(self, r):
        if r.bit():
            self.lead, sig = r.bits(5), r.bits(6)
            self.sig = 64 if sig == 0 else sig
            if self.lead + self.sig > 64:
                raise ValueError("window")
            self.set = True
        elif not self.set:
            raise ValueError("window unset")
        x = r.bits(self.sig) << (64 - self.lead - self.sig)
        if x == 0:
            raise ValueError("zero xor")
        return x

def decode(data):
    if len(data) >= 1 and data[0] == 4:
        return decode_group(data)
    if len(data) < 4:
        raise ValueError("header")
    enc, count = data[0], (data[1] << 8) | data[2]
    if enc not in (1, 2, 3) or count == 0:
        raise ValueError("header")
    z, pos, shift = 0, 3, 0
    while True:
        if pos >= len(data) or shift > 63:
            raise ValueError("varint")
        b = data[pos]; pos += 1
        z |= (b & 0x7F) << shift; shift += 7
        if not b & 0x80:
            break
    z &= M64
    t = s64((z >> 1) ^ ((-(z & 1)) & M64))
    if enc == 3:
        return decode_packed(data[pos:], count, t)
    r = Bits(data[pos:])
    win = Window()
    st = {"valid": False, "s": 0, "n": 0, "d": 0}

    def after_other(v):
        for s in range(st["s"], 7):
            n = representable(b2f(v), s)
            if n is not None:
                st.update(valid=True, s=s, n=n & M64, d=0)
                return
        st["valid"] = False

    def int_value():
        return f2b(float(s64(st["n"])) / float(10 ** st["s"]))

    v = r.bits(64)
    out = [(t, v)]
    if enc == 2:
        after_other(v)
    delta = 0
    tw, vw = (0, 14, 17, 20, 64), (6, 13, 20, 32, 64)
    run_left = 0
    for i in range(1, count):
        # encoding 2 sample codes: 0 (nothing new) | 100 + run length | 1 + t code + v code
        trivial = False
        if enc == 1:
            delta = (delta + dod(r, tw)) & M64
        elif run_left > 0:
            run_left -= 1
            trivial = True
        elif r.bit() == 0:
            trivial = True
        else:
            b1 = r.bit()
            if b1 == 1:  # timestamp code other than "0": re-read it with its first bit known
                r.pos -= 1
                delta = (delta + dod(r, tw)) & M64
            elif r.bit() == 1:  # timestamp code "0", value code starting with 1: re-read it
                r.pos -= 1
            else:
                width = 4 if r.bit() == 0 else (8 if r.bit() == 0 else 16)
                run = r.bits(width) + 2
                if run > count - i:
                    raise ValueError("run overruns")
                run_left = run - 1
                trivial = True
        nt = s64((t + delta) & M64)
        if nt <= t:
            raise ValueError("time")
        t = nt
        if trivial:
            if st["valid"]:
                st["n"] = (st["n"] + st["d"]) & M64
                v = int_value()
        elif enc == 2 and st["valid"]:
            ones = 0
            while ones < 3 and r.bit():
                ones += 1
            if ones < 2:
                dd = dod(r, vw) if ones == 1 else 0
                st["d"] = (st["d"] + dd) & M64
                st["n"] = (st["n"] + st["d"]) & M64
                v = int_value()
            else:
                if ones == 3:
                    v ^= win.tail(r)
                after_other(v)
        else:
            if r.bit():
                v ^= win.tail(r)
            if enc == 2:
                after_other(v)
        out.append((t, v))
    return out

# ---- encoding 3 (packed) ----

POW10 = [float(10 ** k) for k in range(23)]
NEG10 = [float("1e-%d" % k) for k in range(23)]  # the doubles nearest 10^-k


def unzz(u):
    return ((u >> 1) ^ (-(u & 1))) & M64


def vb(r):
    n = r.bits(7)
    if n > 64:
        raise ValueError("vb length")
    return r.bits(n)


def rice(r, p):
    q = 0
    while q < 16 and r.bit():
        q += 1
    if q == 16:
        return vb(r)
    return ((q << p) | r.bits(p)) & M64


def to_double(u):  # an int64 (as u64) rounded to the nearest double
    return float(s64(u))


def dec_value(m, op, k):
    x = to_double(m)
    if op == 0:
        return x / POW10[k]
    if op == 1:
        return x * NEG10[k]
    for _ in range(k):
        x = x / 1000.0
    return x


class Seq:
    def __init__(self, r):
        self.r = r
        self.mult = vb(r)
        if self.mult == 0:
            raise ValueError("mult 0")
        self.kind = r.bits(3)
        self.y = 0
        if self.kind in (0, 1):
            self.base = unzz(vb(r))
            self.width = r.bits(7)
            if self.width > 64:
                raise ValueError("width")
        elif self.kind in (2, 3):
            self.p = r.bits(6)
        elif self.kind in (4, 5):
            self.gap_p, self.p = r.bits(6), r.bits(6)
            self.left = rice(r, self.gap_p)
        else:
            raise ValueError("seq")

    def next(self):
        r, k = self.r, self.kind
        if k in (0, 1):
            e = (self.base + r.bits(self.width)) & M64
        elif k in (2, 3):
            e = unzz(rice(r, self.p))
        else:
            if self.left > 0:
                self.left -= 1
                e = 0
            else:
                e = unzz((rice(r, self.p) + 1) & M64)
                self.left = rice(r, self.gap_p)
        if k % 2 == 1:  # dod forms
            self.y = (self.y + e) & M64
            e = self.y
        return (self.mult * e) & M64


def decode_packed(stream, count, t):
    r = Bits(stream)
    if count >= 2:
        step = unzz(vb(r))
        gap_p, res_p = r.bits(6), r.bits(6)
        left = rice(r, gap_p)
        grid = t & M64
    mode = r.bits(2)
    op = k = 0
    seq = None
    if mode == 0:
        if r.bit():
            k = r.bits(5)
            if k > 22:
                raise ValueError("scale")
            v = f2b(dec_value(unzz(vb(r)), 0, k))
        else:
            v = r.bits(64)
    elif mode == 1:
        op, k = r.bits(2), r.bits(5)
        if op == 3 or (op == 2 and not 1 <= k <= 7) or (op < 2 and k > 22):
            raise ValueError("decimal op/scale")
        m = unzz(vb(r))
        v = f2b(dec_value(m, op, k))
        seq = Seq(r)
    elif mode == 2:
        v = r.bits(64)
        seq = Seq(r)
    else:
        v = r.bits(64)
        k = r.bits(5)
        if k > 22:
            raise ValueError("scale")
        seq = Seq(r)
    out = [(t, v)]
    for _ in range(1, count):
        if left > 0:
            left -= 1
            grid = (grid + step) & M64
            nt = grid
        else:
            anchor = r.bit()
            pred = (grid + step) & M64
            nt = (pred + unzz((rice(r, res_p) + 1) & M64)) & M64
            grid = nt if anchor else pred
            left = rice(r, gap_p)
        if mode == 1:
            m = (m + seq.next()) & M64
            v = f2b(dec_value(m, op, k))
        elif mode == 2:
            v = (v + seq.next()) & M64
        elif mode == 3:
            v = f2b(b2f(v) + to_double(seq.next()) / POW10[k])
        nt = s64(nt)
        if nt <= t:
            raise ValueError("time")
        t = nt
        out.append((t, v))
    return out


# ---- encoding 4 (group) ----

def decode_group(data):
    if len(data) < 2 or data[1] < 2:
        raise ValueError("group header")
    n, pos, out = data[1], 2, []
    for i in range(n):
        if i + 1 < n:
            ln, shift = 0, 0
            for j in range(6):
                if j == 5 or pos >= len(data):
                    raise ValueError("group length")
                b = data[pos]; pos += 1
                ln |= (b & 0x7F) << shift; shift += 7
                if not b & 0x80:
                    break
            if ln > len(data) - pos:
                raise ValueError("group length")
            part = data[pos:pos + ln]; pos += ln
        else:
            part = data[pos:]
        if len(part) < 4 or part[0] not in (1, 2, 3) or (part[1] << 8 | part[2]) == 0:
            raise ValueError("group part")
        samples = decode(part)
        if out and samples[0][0] <= out[-1][0]:
            raise ValueError("group time")
        out += samples
    if len(out) > 65535:
        raise ValueError("group size")
    return out


for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    try:
        print(" ".join("%d:%016x" % (t, v) for t, v in decode(bytes.fromhex(line))))
    except ValueError as e:
        print("ERR", e)
