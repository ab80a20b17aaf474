#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Compares two folders written by behaviour-snapshot.sh: text outputs must be identical, JSON documents equal key by
key (same keys in the same order, numbers equal to 1e-14 relative: the old writer printed 15 significant digits),
Chakra traces byte for byte. Prints every difference; exit 1 if there is any. A developer tool: CI does not run it.
Usage: tests/tools/compare-snapshots.py BEFORE_DIR AFTER_DIR"""
import filecmp
import json
import math
import os
import sys


def same_json(a, b, path, problems):
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a.keys()) != list(b.keys()):
            problems.append(f"{path}: keys {list(a.keys())} != {list(b.keys())}")
            return
        for key in a:
            same_json(a[key], b[key], f"{path}.{key}", problems)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            problems.append(f"{path}: {len(a)} items != {len(b)}")
            return
        for i, (x, y) in enumerate(zip(a, b)):
            same_json(x, y, f"{path}[{i}]", problems)
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        if not math.isclose(a, b, rel_tol=1e-14, abs_tol=0.0):
            problems.append(f"{path}: {a!r} != {b!r}")
    elif a != b:
        problems.append(f"{path}: {a!r} != {b!r}")


def main(before, after):
    problems = []
    for root, _, files in os.walk(before):
        for name in sorted(files):
            old = os.path.join(root, name)
            relative = os.path.relpath(old, before)
            new = os.path.join(after, relative)
            if not os.path.exists(new):
                problems.append(f"{relative}: missing after")
            elif name.endswith(".json"):
                with open(old) as f_old, open(new) as f_new:
                    same_json(json.load(f_old), json.load(f_new), relative, problems)
            elif not filecmp.cmp(old, new, shallow=False):
                problems.append(f"{relative}: differs (diff {old} {new})")
    for root, _, files in os.walk(after):
        for name in files:
            relative = os.path.relpath(os.path.join(root, name), after)
            if not os.path.exists(os.path.join(before, relative)):
                problems.append(f"{relative}: new after")
    for problem in problems:
        print(problem)
    print(f"{len(problems)} difference(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
