"""Sphinx configuration of webtorch's documentation site (built by scripts/build_docs.py).

Pages are Markdown (MyST); every docs/*.md page is picked up by index.md's glob toctree. The API
reference (api/) is generated from webtorch's docstrings by docs/_ext/webtorch_docs.py. The build
needs nothing from the network: no intersphinx, no CDN assets, no web fonts.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # the checkout's webtorch, not an installed one
sys.path.insert(0, os.path.join(HERE, "_ext"))

project = "webtorch"
author = "webtorch contributors"
copyright = "webtorch contributors (MIT)"
release = version = "0.1.0"

extensions = ["myst_parser", "sphinx.ext.autodoc", "webtorch_docs"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "*.png"]
myst_heading_anchors = 3  # [text](page.md#a-heading) links
myst_enable_extensions = ["colon_fence"]

nitpicky = True  # a reference that resolves to nothing is a warning, and -W makes it an error
autodoc_typehints = "none"  # signatures as written; type hints would be unresolved references
autodoc_default_options = {}
autodoc_member_order = "alphabetical"
add_module_names = True

html_theme = "alabaster"  # ships with Sphinx; system fonts, no external assets
html_title = "webtorch"
html_theme_options = {"font_family": "system-ui, sans-serif", "head_font_family": "system-ui, sans-serif",
                      "code_font_family": "ui-monospace, monospace", "page_width": "1100px",
                      "sidebar_width": "230px", "show_relbars": True}
html_sidebars = {"**": ["about.html", "navigation.html", "searchbox.html"]}
html_copy_source = False
html_show_sourcelink = False
