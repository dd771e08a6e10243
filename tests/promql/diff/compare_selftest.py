#!/usr/bin/env python3
"""Proves compare.py can fail: equal answers pass, each kind of difference it
claims to catch is caught, tolerances are where its docstring says. No servers.

Usage: compare_selftest.py  (exit 0 when every check holds)
"""

import math
import os
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402


def ok(result_type, result, code=200):
    return compare.Answer(code, {"status": "success", "data": {"resultType": result_type, "result": result}}, None, 0)


def err(error_type, msg="boom", code=400):
    return compare.Answer(code, {"status": "error", "errorType": error_type, "error": msg}, None, 0)


def vec(*series):
    return [{"metric": m, "value": [t, v]} for m, t, v in series]


def mat(*series):
    return [{"metric": m, "values": [[t, v] for t, v in pts]} for m, pts in series]


M1 = {"__name__": "up", "instance": "a"}
M2 = {"__name__": "up", "instance": "b"}


class CompareTest(unittest.TestCase):
    def same(self, a, b, ordered=False):
        self.assertEqual(compare.compare_answers(a, b, ordered), [])

    def differ(self, a, b, ordered=False, want=""):
        diffs = compare.compare_answers(a, b, ordered)
        self.assertTrue(diffs, "expected a difference")
        self.assertIn(want, "\n".join(diffs))

    def test_equal_vectors_in_any_order(self):
        self.same(ok("vector", vec((M1, 10, "1"), (M2, 10, "2"))), ok("vector", vec((M2, 10, "2"), (M1, 10, "1"))))

    def test_value_tolerance(self):
        a = ok("vector", vec((M1, 10, "1000000")))
        self.same(a, ok("vector", vec((M1, 10, "1000000.5"))))  # 5e-7 relative
        self.differ(a, ok("vector", vec((M1, 10, "1000002"))), want="A=1000000@10.000 B=1000002@10.000")
        self.same(ok("vector", vec((M1, 10, "0"))), ok("vector", vec((M1, 10, "1e-12"))))
        self.differ(ok("vector", vec((M1, 10, "0"))), ok("vector", vec((M1, 10, "1e-6"))))

    def test_special_values(self):
        for x in ["NaN", "+Inf", "-Inf"]:
            self.same(ok("vector", vec((M1, 10, x))), ok("vector", vec((M1, 10, x))))
        self.differ(ok("vector", vec((M1, 10, "NaN"))), ok("vector", vec((M1, 10, "1"))))
        self.differ(ok("vector", vec((M1, 10, "1"))), ok("vector", vec((M1, 10, "NaN"))))
        self.differ(ok("vector", vec((M1, 10, "+Inf"))), ok("vector", vec((M1, 10, "-Inf"))))
        self.differ(ok("vector", vec((M1, 10, "+Inf"))), ok("vector", vec((M1, 10, "1e308"))))

    def test_timestamps_exact(self):
        self.differ(ok("vector", vec((M1, 10, "1"))), ok("vector", vec((M1, 10.001, "1"))), want="@10.001")
        self.same(ok("vector", vec((M1, 10.5, "1"))), ok("vector", vec((M1, 10.5, "1"))))

    def test_series_sets(self):
        a = ok("vector", vec((M1, 10, "1"), (M2, 10, "2")))
        self.differ(a, ok("vector", vec((M1, 10, "1"))), want='missing in B: {__name__="up",instance="b"}')
        self.differ(ok("vector", vec((M1, 10, "1"))), a, want="extra in B")
        # A label more or less is another series.
        self.differ(ok("vector", vec((M1, 10, "1"))), ok("vector", vec(({"instance": "a"}, 10, "1"))))
        self.differ(ok("vector", vec((M1, 10, "1"))), ok("vector", vec((M1, 10, "1"), (M1, 10, "1"))),
                    want="twice")

    def test_order_only_when_ordered(self):
        a = ok("vector", vec((M1, 10, "1"), (M2, 10, "2")))
        b = ok("vector", vec((M2, 10, "2"), (M1, 10, "1")))
        self.same(a, b)
        self.differ(a, b, ordered=True, want="order differs")
        # Ties may come in any order.
        self.same(ok("vector", vec((M1, 10, "1"), (M2, 10, "1"))), ok("vector", vec((M2, 10, "1"), (M1, 10, "1"))),
                  ordered=True)

    def test_matrix(self):
        a = ok("matrix", mat((M1, [(10, "1"), (25, "2"), (40, "NaN")])))
        self.same(a, ok("matrix", mat((M1, [(10, "1"), (25, "2"), (40, "NaN")]))))
        self.differ(a, ok("matrix", mat((M1, [(10, "1"), (25, "2.1"), (40, "NaN")]))), want="1 of 3 values differ")
        self.differ(a, ok("matrix", mat((M1, [(10, "1"), (25, "2")]))), want="only in A: 1")
        self.differ(a, ok("matrix", mat((M1, [(10, "1"), (26, "2"), (40, "NaN")]))), want="only in B: 1")
        self.differ(a, ok("matrix", mat((M1, [(10, "1"), (25, "2"), (40, "NaN")]), (M2, [(10, "1")]))),
                    want="extra in B")
        self.differ(a, ok("matrix", mat((M1, [(25, "2"), (10, "1"), (40, "NaN")]))), want="different order")

    def test_scalar_and_string(self):
        self.same(ok("scalar", [10, "1.5"]), ok("scalar", [10, "1.5"]))
        self.differ(ok("scalar", [10, "1.5"]), ok("scalar", [10, "1.6"]), want="scalar")
        self.differ(ok("scalar", [10, "1.5"]), ok("scalar", [11, "1.5"]))
        self.same(ok("string", [10, "x"]), ok("string", [10, "x"]))
        self.differ(ok("string", [10, "x"]), ok("string", [10, "y"]), want="string")

    def test_envelopes(self):
        self.differ(ok("vector", []), ok("matrix", []), want="resultType")
        self.differ(ok("vector", []), err("bad_data"), want="B: 400 error bad_data")
        self.differ(err("bad_data"), ok("vector", []))
        self.same(err("bad_data", "one message"), err("bad_data", "another message"))
        self.differ(err("bad_data"), err("execution", code=400), want="errorType")
        self.differ(err("execution", code=422), err("execution", code=400), want="422")
        self.differ(ok("vector", []), compare.Answer(0, None, "refused", 0), want="no answer")
        self.differ(ok("vector", vec((M1, 10, "1"))), ok("vector", vec((M1, 10, 1))), want="malformed")
        self.differ(ok("vector", []), ok("vector", None), want="not a list")

    def test_corpus_problem(self):
        case = {"tags": ["error:parse"]}
        self.assertIsNone(compare.corpus_problem(case, err("bad_data")))
        self.assertIsNotNone(compare.corpus_problem(case, ok("vector", [])))
        self.assertIsNotNone(compare.corpus_problem({"tags": ["func:rate"]}, err("bad_data")))
        self.assertIsNone(compare.corpus_problem({"tags": ["func:x", "may-fail"]}, err("execution")))


class AllowlistTest(unittest.TestCase):
    def write(self, d, name, text):
        p = os.path.join(d, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def test_match_and_doc_check(self):
        with tempfile.TemporaryDirectory() as d:
            doc = self.write(d, "doc.md", "* `^holt_winters\\(` differs because ...\n")
            al = self.write(d, "al.txt", "# comment\n\n^holt_winters\\( :: rounding in the trend\n")
            allow = compare.Allowlist(al, doc)
            self.assertIsNotNone(allow.match("holt_winters(x[5m], 0.1, 0.2)"))
            self.assertIsNone(allow.match("rate(x[5m])"))
            self.assertEqual(allow.entries[0][3], 1)
            bad_doc = self.write(d, "doc2.md", "nothing here\n")
            with self.assertRaises(compare.AllowlistError):
                compare.Allowlist(al, bad_doc)
            with self.assertRaises(compare.AllowlistError):
                compare.Allowlist(self.write(d, "al2.txt", "no separator here\n"), None)
            with self.assertRaises(compare.AllowlistError):
                compare.Allowlist(self.write(d, "al3.txt", "x ::  \n"), None)

    def test_values_equal_symmetry(self):
        for a, b in [(1.0, 1.0000005), (0.0, 1e-10), (math.inf, math.inf), (math.nan, math.nan)]:
            self.assertTrue(compare.values_equal(a, b) and compare.values_equal(b, a), (a, b))
        self.assertFalse(compare.values_equal(1.0, 1.00001))
        self.assertFalse(compare.values_equal(-1.0, 1.0))


if __name__ == "__main__":
    unittest.main(verbosity=1)
