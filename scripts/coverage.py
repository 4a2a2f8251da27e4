"""Regenerate the table of docs/compatibility.md that says how much of torch 2.13's public API webtorch covers: per namespace the
public names (the rule: tests/namespace_walk.py), how many webtorch implements and how many it refuses,
and the refusals per reason (the table: webtorch/_refusals.py).

  python scripts/coverage.py            print the table
  python scripts/coverage.py --write    write it into docs/compatibility.md between its markers
  python scripts/coverage.py --prune    delete the refusals of names webtorch now implements (stale entries)

tests/test_namespace_coverage.py fails while the page's table differs from what this produces.
"""
import collections
import os
import re
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

import namespace_walk  # noqa: E402
from webtorch import _refusals  # noqa: E402

START, END = "<!-- coverage table: scripts/coverage.py -->", "<!-- end of coverage table -->"
PAGE = os.path.join(ROOT, "docs", "compatibility.md")


def table():
    rows = namespace_walk.walk()
    counts = collections.defaultdict(collections.Counter)
    for path, _, status in rows:
        prefix = path.rpartition(".")[0] if not path.startswith("Tensor.") else "Tensor"
        counts[prefix][status] += 1
    lines = ["| namespace | public names | implemented | refused (NotImplementedError naming the gap) | missing |",
             "| --- | ---: | ---: | ---: | ---: |"]
    total = collections.Counter()
    for prefix in namespace_walk.NAMESPACES:
        c = counts[prefix]
        total.update(c)
        lines.append(f"| `torch{'.' + prefix if prefix else ''}` | {sum(c.values())} | {c['implemented']} | "
                     f"{c['refused']} | {c['missing']} |")
    lines.append(f"| all | {sum(total.values())} | {total['implemented']} | {total['refused']} | {total['missing']} |")
    by_reason = collections.Counter(reason for path, reason, _ in _refusals.entries()
                                    if namespace_walk.status(path) == "refused")
    lines += ["", "| why refused | names |", "| --- | ---: |"]
    lines += [f"| {reason} | {n} |" for reason, n in by_reason.most_common()]
    return "\n".join([START] + lines + [END])


def page_table(text):
    if START not in text or END not in text:
        return None
    return text[text.index(START):text.index(END) + len(END)]


def prune():
    """Delete every stale entry (a refused name webtorch now implements) from webtorch/_refusals.py."""
    stale = {path for path, _, _ in _refusals.entries() if namespace_walk.status(path) == "implemented"}
    path = os.path.join(ROOT, "webtorch", "_refusals.py")
    text = open(path, encoding="utf-8").read()
    def refill(block):
        names = [n for n in block.group(1).split() if n not in stale]
        return '"""\n' + textwrap.fill(" ".join(names), 106, initial_indent=" " * 8, subsequent_indent=" " * 8) + '"""'
    text = re.sub(r'"""\n( {8}[^"]*)"""', refill, text)
    text = re.sub(r'\n    [A-Z_]+: """\n""",', "", text)  # a reason left without names
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"webtorch/_refusals.py: {len(stale)} stale entries deleted: {sorted(stale)}")


def main(argv):
    if "--prune" in argv:
        prune()
        return 0
    new = table()
    if "--write" not in argv:
        print(new)
        return 0
    path = PAGE
    text = open(path, encoding="utf-8").read()
    old = page_table(text)
    if old is None:
        print(f"{path} has no coverage markers ({START} ... {END})", file=sys.stderr)
        return 1
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new))
    print(f"{path}: coverage table written")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
