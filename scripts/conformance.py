"""Regenerate the OpInfo conformance table of docs/compatibility.md (ops x dtypes: pass / partial / not supported /
fail, on webgpu and cpu) from torch 2.13's op database: tests/opinfo_cases.py runs every case.

  python scripts/conformance.py            print the table
  python scripts/conformance.py --write    write it into docs/compatibility.md between its markers

tests/test_opinfo.py fails while the page's table differs from what this produces.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

import opinfo_cases  # noqa: E402


def main(argv):
    table = opinfo_cases.table()
    if "--write" not in argv:
        print(table)
        return 0
    path = opinfo_cases.TABLE_PAGE
    text = open(path, encoding="utf-8").read()
    old = opinfo_cases.page_table(text)
    if old is None:
        print("%s has no conformance markers (%s ... %s)" % (
            path, opinfo_cases.TABLE_START, opinfo_cases.TABLE_END), file=sys.stderr)
        return 1
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(old, table))
    print("%s: conformance table written" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
