"""The API census (issue 22): which parts of torch's API real PyTorch code calls, counted over a corpus of
public repositories (scripts/census_corpus.txt: owner/name and the commit read), and where each stands in
webtorch.

  python scripts/census.py MIRRORS            print the summary
  python scripts/census.py MIRRORS --write    write tests/census_table.csv and docs/census.md

MIRRORS holds one bare git mirror per repository, MIRRORS/<owner>+<name>/repo (as the session's `fetch`
tool lays them out; `git clone --mirror https://github.com/<owner>/<name> MIRRORS/<owner>+<name>/repo`
makes the same). Every file is read at the commit the corpus names, so the table is reproducible.

What is read: every .py file and every code cell of every .ipynb at that commit, except tests (a path
component test/tests/testing, or a file test_*.py / *_test.py / conftest.py). Each file is parsed with
`ast` (a file that does not parse, e.g. Python 2, is skipped and counted) and, per file:
* import aliases are resolved (`import torch.nn.functional as F`, `from torch import nn`,
  `from torch.nn import Linear`; imports anywhere in the file apply to the whole file; a name bound by
  an import of another library, such as np or re, is never a tensor);
* an attribute chain or name rooted at such an alias counts as the torch object it reaches, resolved on
  torch 2.13 itself: the first non-module object along the chain (`nn.Module.__init__` counts
  torch.nn.Module; `torch.backends.cudnn.benchmark` counts itself). A chain torch 2.13 does not have
  (removed APIs, a local variable shadowing an alias) is not counted. Kinds: "name", or "dtype" where
  the object is a torch.dtype. A `from torch.x import y` counts y once.
* a method call `<anything>.m(...)` counts Tensor.m when m is a public method of torch.Tensor, and
  nn.Module.m when m is a public method of nn.Module that Tensor lacks; a plain attribute read
  `<anything>.p` counts Tensor.p when p is a public Tensor property (shape, dtype, T, ...). The receiver's
  type is unknown to a parser, so these counts are upper bounds (a list's .append is never counted, but a
  numpy array's .reshape is).
* each keyword argument of a counted call counts as "<name>(<keyword>=)", kind "keyword".
Per row: uses (occurrences over the corpus), repos (how many repositories use it) and webtorch's status:
"works" (webtorch has the name at the same path; its values are what the op, nn and program tests
check), "refused" (a stand-in from webtorch/_refusals.py raising NotImplementedError naming the gap)
or "missing"; for a keyword, "works" where the webtorch callable's signature takes it (or **kwargs),
"missing" where it does not, "refused" where the callable is refused, "unchecked" where no signature can
be read. tests/test_census.py (in CI, fast) reads the committed table and fails on a "missing" name or
dtype used by at least 1% of the repositories.
"""
import ast
import collections
import csv
import inspect
import json
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

import torch  # noqa: E402

CORPUS = os.path.join(ROOT, "scripts", "census_corpus.txt")
TABLE = os.path.join(ROOT, "tests", "census_table.csv")
DOC = os.path.join(ROOT, "docs", "census.md")
THRESHOLD = 0.01  # the share of repositories from which a name must work or be refused

TENSOR_PUBLIC = {n for n in dir(torch.Tensor) if not n.startswith("_")}
TENSOR_PROPERTIES = {n for n in TENSOR_PUBLIC if not callable(getattr(torch.Tensor, n, None))
                     or isinstance(inspect.getattr_static(torch.Tensor, n), (property, type(torch.Tensor.dtype)))}
TENSOR_METHODS = TENSOR_PUBLIC - TENSOR_PROPERTIES
MODULE_METHODS = {n for n in dir(torch.nn.Module) if not n.startswith("_") and callable(getattr(torch.nn.Module, n))
                  } - TENSOR_PUBLIC


def read_corpus():
    repos = []
    for line in open(CORPUS, encoding="utf-8"):
        line = line.split("#", 1)[0].strip()
        if line:
            name, commit = line.split()
            repos.append((name, commit))
    return repos


def _git(repo_dir, *args, data=None):
    return subprocess.run(["git", "--git-dir", repo_dir, *args], input=data, capture_output=True, check=True).stdout


def _is_test(path):
    parts = path.split("/")
    base = parts[-1]
    return (any(p in ("test", "tests", "testing") for p in parts[:-1]) or base.startswith("test_")
            or base.endswith("_test.py") or base == "conftest.py")


def sources(repo_dir, commit):
    """(path, text) of the Python sources and notebooks' code at commit, tests left out."""
    listing = _git(repo_dir, "ls-tree", "-r", "-z", commit).split(b"\0")
    wanted = []
    for entry in listing:
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        path = path.decode("utf-8", "replace")
        kind, sha = meta.split()[1:3]
        if kind == b"blob" and path.endswith((".py", ".ipynb")) and not _is_test(path):
            wanted.append((path, sha.decode()))
    if not wanted:
        return
    out = _git(repo_dir, "cat-file", "--batch", data="".join(sha + "\n" for _, sha in wanted).encode())
    pos = 0
    for path, _ in wanted:
        header_end = out.index(b"\n", pos)
        header = out[pos:header_end].split()
        size = int(header[2]) if len(header) == 3 else 0
        body = out[header_end + 1:header_end + 1 + size]
        pos = header_end + 1 + size + 1
        text = body.decode("utf-8", "replace")
        if path.endswith(".ipynb"):
            try:
                cells = json.loads(text).get("cells", [])
            except ValueError:
                continue
            text = "\n".join("".join(c.get("source", "")) for c in cells if c.get("cell_type") == "code")
            # IPython magics and shell lines are not Python
            text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(("%", "!")))
        yield path, text


_RESOLVED = {}


def resolve(dotted):
    """The torch path a dotted chain reaches (see the module doc), or None where torch 2.13 has none."""
    if dotted in _RESOLVED:
        return _RESOLVED[dotted]
    parts = dotted.split(".")
    obj, path = torch, ["torch"]
    result = None
    try:
        for part in parts[1:]:
            if not inspect.ismodule(obj):
                break
            obj = getattr(obj, part)
            path.append(part)
        result = (".".join(path), obj) if not inspect.ismodule(obj) else None
    except Exception:  # noqa: BLE001  (AttributeError, or torch.classes' RuntimeError for an unknown class)
        result = None
    _RESOLVED[dotted] = result
    return result


class FileCensus(ast.NodeVisitor):
    def __init__(self, tree):
        self.aliases = {}
        self.other_modules = set()  # names bound to other libraries (np, re, math): their calls are not Tensor's
        self.found = []  # (kind, name)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if not (a.name == "torch" or a.name.startswith("torch.")):
                        self.other_modules.add(a.asname or a.name.split(".")[0])
                    elif a.asname:
                        self.aliases[a.asname] = a.name
                    else:
                        self.aliases["torch"] = "torch"
            elif isinstance(node, ast.ImportFrom) and not (node.level or node.module and (
                    node.module == "torch" or node.module.startswith("torch."))):
                self.other_modules.update(a.asname or a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                for a in node.names:
                    if a.name == "*":
                        continue
                    target = f"{node.module}.{a.name}"
                    self.aliases[a.asname or a.name] = target
                    self._count_name(target)

    def _count_name(self, dotted):
        hit = resolve(dotted)
        if hit is None:
            return None
        path, obj = hit
        self.found.append(("dtype" if isinstance(obj, torch.dtype) else "name", path))
        return path

    def _chain(self, node):
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in self.aliases:
            return ".".join([self.aliases[node.id]] + parts[::-1])
        return None

    def visit_Attribute(self, node):
        chain = self._chain(node)
        if chain is not None:
            self._count_name(chain)
            return
        if node.attr in TENSOR_PROPERTIES and isinstance(node.ctx, ast.Load) and not (
                isinstance(node.value, ast.Name) and node.value.id in self.other_modules):
            self.found.append(("name", "Tensor." + node.attr))
        self.generic_visit(node)

    def visit_Name(self, node):
        if node.id in self.aliases and isinstance(node.ctx, ast.Load):
            self._count_name(self.aliases[node.id])

    def visit_Call(self, node):
        func, name = node.func, None
        chain = self._chain(func) if isinstance(func, (ast.Attribute, ast.Name)) else None
        if isinstance(func, ast.Name) and func.id in self.aliases:
            chain = self.aliases[func.id]
        if chain is not None:
            hit = resolve(chain)
            name = hit[0] if hit is not None and hit[0] == chain else None
        elif isinstance(func, ast.Attribute) and not (isinstance(func.value, ast.Name)
                                                      and func.value.id in self.other_modules):
            if func.attr in TENSOR_METHODS:
                name = "Tensor." + func.attr
            elif func.attr in MODULE_METHODS:
                name = "nn.Module." + func.attr
            if name is not None:
                self.found.append(("name", name))
                self.visit(func.value)
                func = None
        if name is not None:
            for kw in node.keywords:
                if kw.arg is not None:
                    self.found.append(("keyword", f"{name}({kw.arg}=)"))
        if func is not None:
            self.visit(func)
        for arg in node.args:
            self.visit(arg)
        for kw in node.keywords:
            self.visit(kw.value)


def census(mirrors):
    uses, repos_using = collections.Counter(), collections.defaultdict(set)
    stats = []
    for repo, commit in read_corpus():
        repo_dir = os.path.join(mirrors, repo.replace("/", "+"), "repo")
        files = unparsed = 0
        for path, text in sources(repo_dir, commit):
            try:
                tree = ast.parse(text)
            except (SyntaxError, ValueError):
                unparsed += 1
                continue
            files += 1
            fc = FileCensus(tree)
            fc.visit(tree)
            for key in fc.found:
                uses[key] += 1
                repos_using[key].add(repo)
        stats.append((repo, commit, files, unparsed))
    return uses, repos_using, stats


# --- where each counted name stands in webtorch ---------------------------------------------------

def _webtorch_status(name):
    import namespace_walk
    import webtorch
    from webtorch import _refusals
    if name.startswith("nn.Module."):
        return "works" if hasattr(webtorch.nn.Module, name.rsplit(".", 1)[1]) else "missing"
    path = name[len("torch."):] if name.startswith("torch.") else name
    walked = namespace_walk.status(path)
    if walked != "missing":
        return {"implemented": "works", "refused": "refused"}[walked]
    obj = webtorch
    for part in path.split("."):
        try:
            obj = getattr(obj, part)
        except NotImplementedError:  # a refusal (Refused, or a module's own clear refusal)
            return "refused"
        except AttributeError:
            return "missing"
    return "refused" if _refusals.MARK in getattr(obj, "__dict__", {}) else "works"


def _keyword_status(row_name):
    import webtorch
    name, kw = row_name[:-2].split("(")
    status = _webtorch_status(name)
    if status != "works":
        return status
    if name.startswith(("nn.Module.", "Tensor.")):
        obj = webtorch.nn.Module if name.startswith("nn.Module.") else webtorch.Tensor
        parts = name.split(".")[-1:]
    else:
        obj, parts = webtorch, name.split(".")[1:]
    try:
        for part in parts:
            obj = getattr(obj, part)
        sig = inspect.signature(obj.__init__ if isinstance(obj, type) else obj)
    except (TypeError, ValueError, AttributeError, NotImplementedError):
        return "unchecked"
    params = sig.parameters.values()
    if any(p.kind == p.VAR_KEYWORD for p in params) or kw in sig.parameters:
        return "works"
    return "missing"


def rows(uses, repos_using):
    out = []
    for (kind, name), n in uses.items():
        status = _keyword_status(name) if kind == "keyword" else _webtorch_status(name)
        out.append({"kind": kind, "name": name, "uses": n, "repos": len(repos_using[(kind, name)]), "status": status})
    out.sort(key=lambda r: (-r["repos"], -r["uses"], r["name"]))
    return out


def write(table, stats):
    with open(TABLE, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, ["kind", "name", "uses", "repos", "status"])
        w.writeheader()
        w.writerows(table)
    n_repos = len(stats)
    cut = math.ceil(THRESHOLD * n_repos)
    counts = collections.Counter((r["kind"], r["status"]) for r in table if r["repos"] >= cut)
    lines = [
        "# The API census",
        "",
        "Generated by `python scripts/census.py MIRRORS --write` (the method: that script's docstring). "
        f"Corpus: {n_repos} public repositories, {sum(s[2] for s in stats)} Python files and notebooks parsed "
        f"({sum(s[3] for s in stats)} not parseable, skipped); each repository at the commit below. "
        f"The whole table: `tests/census_table.csv` ({len(table)} rows). `tests/test_census.py` fails on a "
        f"missing public name or dtype used by at least {THRESHOLD:.0%} of the repositories ({cut} of {n_repos}), "
        "judged on webtorch as it is then, except the gaps `tests/census_gaps.txt` lists (a ratchet: each to close).",
        "",
        "Rows used by at least %d repositories, by kind and webtorch status:" % cut,
        "",
        "| kind | works | refused | missing | unchecked |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for kind in ("name", "dtype", "keyword"):
        lines.append(f"| {kind} | {counts[kind, 'works']} | {counts[kind, 'refused']} | {counts[kind, 'missing']} | "
                     f"{counts[kind, 'unchecked']} |")
    lines += ["", "## The 150 most used names and dtypes", "", "| name | uses | repos | webtorch |", "| --- | ---: | ---: | --- |"]
    lines += [f"| `{r['name']}` | {r['uses']} | {r['repos']} | {r['status']} |"
              for r in [r for r in table if r["kind"] != "keyword"][:150]]
    lines += ["", "## Names, dtypes and keywords not working, used by at least 2 repositories", "",
              "| kind | name | uses | repos | webtorch |", "| --- | --- | ---: | ---: | --- |"]
    lines += [f"| {r['kind']} | `{r['name']}` | {r['uses']} | {r['repos']} | {r['status']} |"
              for r in table if r["status"] != "works" and r["repos"] >= 2]
    lines += ["", "## Corpus", "", "| repository | commit | files | not parseable |", "| --- | --- | ---: | ---: |"]
    lines += [f"| [{repo}](https://github.com/{repo}) | `{commit[:12]}` | {files} | {bad} |"
              for repo, commit, files, bad in stats]
    os.makedirs(os.path.dirname(DOC), exist_ok=True)
    with open(DOC, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def main(argv):
    if not argv or argv[0].startswith("-"):
        print(__doc__)
        return 2
    uses, repos_using, stats = census(argv[0])
    table = rows(uses, repos_using)
    if "--write" in argv:
        write(table, stats)
        print(f"wrote {TABLE} and {DOC}")
    cut = math.ceil(THRESHOLD * len(stats))
    for r in table:
        if r["status"] != "works" and r["repos"] >= cut and r["kind"] != "keyword":
            print(r)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
