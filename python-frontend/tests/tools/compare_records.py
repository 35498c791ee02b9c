"""Compares two folders written by ir_recorder.py (before and after a
change): per test, the set of translations (text or error) must be the
same. Files are named by a hash of their content, so they are compared as
sets of contents, not by name.

    python3 compare_records.py BEFORE AFTER [--ignore-lines FILE.py ...]

--ignore-lines: line numbers in locations `FILE.py:LINE` are not compared
(for a test file whose lines moved between the two runs).
"""

import argparse
import os
import re
import sys


def contents(folder: str, ignore: list) -> set:
    out = set()
    for name in os.listdir(folder):
        with open(os.path.join(folder, name)) as f:
            text = f.read()
        for path in ignore:
            text = re.sub(re.escape(path) + r":\d+", path + ":N", text)
        out.add((name.rsplit(".", 2)[0], text))
    return out


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--ignore-lines", nargs="*", default=[])
    a = p.parse_args()
    tests = sorted(set(os.listdir(a.before)) | set(os.listdir(a.after)))
    differing = 0
    for t in tests:
        b, c = (os.path.join(d, t) for d in (a.before, a.after))
        if not (os.path.isdir(b) and os.path.isdir(c)):
            print(f"only in {'before' if os.path.isdir(b) else 'after'}: {t}")
            differing += 1
        elif contents(b, a.ignore_lines) != contents(c, a.ignore_lines):
            print(f"differs: {t}")
            differing += 1
    print(f"{len(tests)} tests, {differing} with different translations")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
