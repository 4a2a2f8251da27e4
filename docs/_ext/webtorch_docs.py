"""Sphinx extension of webtorch's docs site.

* ``{webtorch-namespace} webtorch.nn`` (a directive): the API reference of one namespace, generated from
  the module itself: every public name, with its docstring (autodoc) for a function or class, its value
  for a dtype or constant, and the error a refused name raises (webtorch/_refusals.py). The names come
  from ``public_names``, which tests/test_docs.py also uses, so nothing public is left out.
* The home page's "Topics" toctree (a glob, so that any new docs/*.md page joins the site without an edit)
  is narrowed to the pages its "Guides" toctree does not list, so that none appears twice in the navigation.
* ``check_links(outdir)``: every relative link of the built HTML pages (href and src) must name a file
  of the site and, with a ``#fragment``, an id in it; each broken one is a warning (an error under -W).
  Run when the build finishes.
"""
from __future__ import annotations

import html.parser
import importlib
import inspect
import posixpath
import re
import types
import urllib.parse
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

logger = logging.getLogger(__name__)

# Classes whose methods are listed on their page (the others: the class and its docstring).
WITH_MEMBERS = {"webtorch.Tensor", "webtorch.nn.Module", "webtorch.optim.Optimizer",
                "webtorch.utils.data.DataLoader", "webtorch.Generator"}
# Names a namespace only imports for its own use (no __all__ says so).
IMPORTED_HELPERS = {"F", "Tensor", "dt", "autocast_op"}


def _refusal(obj):
    from webtorch import _refusals
    return getattr(obj, _refusals.MARK, None)


def public_names(module_name: str) -> list[tuple[str, str, object]]:
    """[(name, kind, object)] of a namespace's public names, sorted; kind is one of "refused", "module",
    "class", "function", "value". The namespace's __all__ where it has one; else dir() less underscored
    names, the modules and callables it imports from outside webtorch (math, OrderedDict, ...) and
    IMPORTED_HELPERS; for the top-level namespace every name of dir()."""
    module = importlib.import_module(module_name)
    top = module_name == "webtorch"
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    out = []
    for name in sorted(set(names)):
        obj = getattr(module, name)
        if _refusal(obj) is not None:
            kind = "refused"
        elif isinstance(obj, types.ModuleType):
            if not top and not obj.__name__.startswith(module_name + "."):
                continue  # math, functools, ...: imported for the module's own use
            kind = "module"
        elif inspect.isclass(obj):
            kind = "class"
        elif callable(obj) and (inspect.isroutine(obj) or isinstance(obj, type(len))):
            kind = "function"
        else:
            kind = "value"
        if not top and kind in ("class", "function"):
            origin = getattr(obj, "__module__", "") or ""
            if not origin.startswith("webtorch") or name in IMPORTED_HELPERS:
                continue
        out.append((name, kind, obj))
    return out


def _first_line(doc):
    doc = inspect.cleandoc(doc or "").strip()
    return doc.split("\n\n", 1)[0].replace("\n", " ") if doc else ""


def _literal(text, limit=120):
    """Text shown verbatim inside an RST paragraph (cut after limit characters)."""
    text = " ".join(text.replace("`", "'").split())
    if len(text) > limit:
        text = text[:limit].rstrip() + " ..."
    return "``" + text + "``" if text else ""


def class_homes(namespaces: list[str]) -> dict[int, str]:
    """{id(class): the path it is documented at}: its first public path in namespaces' order. A class
    reachable at several paths (webtorch.no_grad, webtorch.autograd.no_grad) is documented once; its
    other paths refer to it (autodoc would otherwise describe its canonical name twice)."""
    homes = {}
    for module_name in namespaces:
        for name, kind, obj in public_names(module_name):
            if kind == "class":
                homes.setdefault(id(obj), f"{module_name}.{name}")
    return homes


def namespace_rst(module_name: str, pages: list[str]) -> list[str]:
    """The reStructuredText of one namespace's reference (autodoc directives and plain descriptions);
    pages: the namespaces with a reference page, in order."""
    homes = class_homes(pages)
    groups = {"module": [], "class": [], "function": [], "value": [], "refused": []}
    for name, kind, obj in public_names(module_name):
        groups[kind].append((name, obj))
    lines = []
    titles = {"module": "Submodules", "class": "Classes", "function": "Functions", "value": "Values",
              "refused": "Refused names"}
    for kind in ("module", "class", "function", "value", "refused"):
        if not groups[kind]:
            continue
        lines += [titles[kind], "-" * len(titles[kind]), ""]
        if kind == "refused":
            lines += ["These names exist so that imports and feature probes keep working; calling one raises "
                      "``NotImplementedError`` naming the gap (``webtorch/_refusals.py``).", ""]
        for name, obj in groups[kind]:
            full = f"{module_name}.{name}"
            if kind == "module":
                summary = _rst_text(_first_line(obj.__doc__))
                if obj.__name__ in pages and obj.__name__ == full:  # its page declares the module (py:module)
                    lines += [f"* ``{full}``: :py:mod:`{obj.__name__}`. {summary}", ""]
                else:
                    where = f":py:mod:`{obj.__name__}`" if obj.__name__ in pages else "no reference page of its own"
                    lines += [f".. py:data:: {name}", f"   :module: {module_name}", "   :type: module", "",
                              f"   The module ``{obj.__name__}`` ({where}). {summary}", ""]
            elif kind == "class" and homes.get(id(obj), full) != full:
                lines += [f".. py:class:: {name}", f"   :module: {module_name}", "", f"   The class :py:class:`{homes[id(obj)]}`.", ""]
            elif kind == "class":
                lines += [f".. autoclass:: {full}"]
                if full in WITH_MEMBERS:
                    lines += ["   :members:", "   :undoc-members:"]
                lines += [""]
            elif kind == "function":
                lines += [f".. autofunction:: {full}", ""]
            elif kind == "value":
                lines += [f".. py:data:: {name}", f"   :module: {module_name}", "", f"   {_literal(repr(obj))}", ""]
            else:
                directive = "py:class" if inspect.isclass(obj) else "py:function"
                lines += [f".. {directive}:: {name}", f"   :module: {module_name}", "   :no-index-entry:", "",
                          f"   Refused: {_literal(_refusal(obj))}.", ""]
    return lines


def _rst_text(text):
    """A docstring's first line as plain RST text (markup characters escaped)."""
    for ch in "\\*`|_[":
        text = text.replace(ch, "\\" + ch)
    return text


class NamespaceDirective(SphinxDirective):
    required_arguments = 1

    def run(self):
        module_name = self.arguments[0].strip()
        pages = sorted(p.removeprefix("api/") for p in self.env.found_docs if p.startswith("api/webtorch"))
        content = StringList(namespace_rst(module_name, pages), source=f"<{module_name} reference>")
        holder = nodes.section()
        holder.document = self.state.document
        nested_parse_with_titles(self.state, content, holder)
        return holder.children


# -- docstrings -------------------------------------------------------------------------------------------
# webtorch's docstrings are plain prose with Markdown-style `code` spans, not reStructuredText: each is
# rendered as such (paragraphs, "- " lists, indented blocks verbatim), never parsed as markup.
_SPECIAL = re.compile(r"([\\*|_\[\]<>:])")


def _inline(text):
    """One paragraph of prose as RST: markup characters escaped, `x` and ``x`` as inline literals."""
    out = []
    for i, piece in enumerate(re.split(r"``?([^`]+?)``?", text)):
        if i % 2:
            out.append("\\ ``" + piece.strip() + "``\\ " if piece.strip() else "")
        else:
            out.append(_SPECIAL.sub(r"\\\1", piece.replace("`", "'")))
    return "".join(out)


def docstring_rst(lines: list[str]) -> list[str]:
    """A plain-prose docstring's lines (autodoc's, dedented) as reStructuredText."""
    out, block = [], []

    def flush():
        if not block:
            return
        indent = min(len(b) - len(b.lstrip()) for b in block if b.strip())
        if indent or any(b.lstrip().startswith(">>>") for b in block):
            out.extend(["::", ""] + ["   " + b for b in block] + [""])
        elif block[0].startswith(("- ", "* ")):
            items = []
            for b in block:
                if b.startswith(("- ", "* ")):
                    items.append(b[2:].strip())
                elif items:
                    items[-1] += " " + b.strip()
            out.extend(["- " + _inline(it) for it in items] + [""])
        else:
            first, rest = block[0], [b for b in block[1:]]
            if rest and (len(rest[0]) - len(rest[0].lstrip())) > 0:  # a paragraph, then an indented block
                out.extend([_inline(first), "", "::", ""] + ["   " + b for b in rest] + [""])
            else:
                text = " ".join(b.strip() for b in block)
                out.extend([_inline(text), ""])
        block.clear()

    for line in lines:
        if line.strip():
            block.append(line.rstrip())
        else:
            flush()
    flush()
    return out


def _in_torch(path):
    """Whether real torch (if installed) has this dotted path."""
    try:
        obj = importlib.import_module("torch")
    except ImportError:
        return False
    for part in path.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return False
    return True


def _process_docstring(app, what, name, obj, options, lines):
    lines[:] = docstring_rst(list(lines))
    twin = "torch." + name.removeprefix("webtorch.")
    if not lines and what in ("function", "class", "method") and _in_torch(twin):
        # no docstring of its own: it is the counterpart of torch's name at the same path
        lines[:] = [f"PyTorch 2.13's \\ ``{twin}``\\ , with its arguments and defaults; where webtorch differs, "
                    ":doc:`/limits` says so.", ""]


# -- the home page's toctrees ------------------------------------------------------------------------------
_TOCTREE = re.compile(r"^```\{toctree\}\n(.*?)^```", re.S | re.M)


def other_pages(index_source: str, pages: list[str]) -> list[str]:
    """The top-level pages that no toctree of the home page names, sorted."""
    named = set()
    for body in _TOCTREE.findall(index_source):
        named.update(line.strip() for line in body.splitlines() if line.strip() and not line.startswith(":"))
    return sorted(p for p in pages if "/" not in p and p != "index" and p not in named)


def _narrow_topics(app, docname, source):
    if docname != app.config.root_doc:
        return

    def narrow(match):
        body = match.group(1)
        if ":glob:" not in body:
            return match.group(0)
        others = other_pages(source[0], sorted(app.env.found_docs))
        lines = [line for line in body.splitlines() if line.startswith(":") and line != ":glob:"]
        return "```{toctree}\n" + "\n".join(lines) + "\n\n" + "\n".join(others) + "\n```"

    source[0] = _TOCTREE.sub(narrow, source[0])


# -- broken links ------------------------------------------------------------------------------------------
class _Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key == "id" or (key == "name" and tag == "a"):
                self.ids.add(value)
            elif key in ("href", "src") and value is not None:
                self.links.append(value)


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    return parser


def check_links(outdir) -> list[str]:
    """Broken relative links of the built site: ["page.html: link (why)"]. External links (a scheme or
    //host) are not followed: the site must build offline."""
    outdir = Path(outdir)
    pages = {p: _parse(p) for p in outdir.rglob("*.html")}
    problems = []
    for page, parsed in sorted(pages.items()):
        for link in parsed.links:
            parts = urllib.parse.urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:")):
                continue
            target = page
            if parts.path:
                target = Path(posixpath.normpath(str(page.parent / urllib.parse.unquote(parts.path))))
                if target.is_dir():
                    target = target / "index.html"
            rel = page.relative_to(outdir)
            if not target.exists():
                problems.append(f"{rel}: {link} (no such file)")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if urllib.parse.unquote(parts.fragment) not in ids:
                    problems.append(f"{rel}: {link} (no id {parts.fragment!r} there)")
    return problems


def _check_built_site(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    for problem in check_links(app.outdir):
        logger.warning("broken link: %s", problem, type="webtorch", subtype="link")


def setup(app):
    app.add_directive("webtorch-namespace", NamespaceDirective)
    app.connect("build-finished", _check_built_site)
    app.connect("autodoc-process-docstring", _process_docstring)
    app.connect("source-read", _narrow_topics)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
