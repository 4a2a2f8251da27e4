"""Loads a program file of tests/programs/ as a module under torch or webtorch: the file imports
webtorch (its import lines are the only change from upstream); for torch those lines are turned
back. The file is executed afresh for each library, so module-level state is not shared."""
import os
import re
import sys
import types
from pathlib import Path

PROGRAMS = Path(os.environ.get("WEBTORCH_PROGRAMS_DIR", Path(__file__).parent / "programs"))
_IMPORT = re.compile(r"^(\s*)(import|from)\s+webtorch\b")


def path(name):
    return PROGRAMS / name


def load(name, T, module_name=None, stubs=None, package=None, argv=None):
    """The program `name` as a fresh module, importing torch (T is torch) or webtorch. `stubs` maps
    module names to stand-ins for libraries that are not torch (tests/program_stubs.py), present in
    sys.modules while the file runs; `package` is the package its relative imports are resolved in;
    `argv` is sys.argv while it runs (scripts that parse their arguments at import)."""
    text = path(name).read_text()
    if T.__name__ == "torch":
        text = "\n".join(_IMPORT.sub(lambda m: f"{m.group(1)}{m.group(2)} torch", line).replace(
            "webtorch as torch", "torch") if _IMPORT.match(line) else line for line in text.split("\n"))
    module_name = module_name or f"program_{Path(name).stem}_{T.__name__}"
    module = types.ModuleType(module_name)
    module.__file__ = str(path(name))
    module.__package__ = package
    saved = {name: sys.modules.get(name) for name in stubs or {}}
    saved_argv = sys.argv
    sys.modules.update(stubs or {})
    sys.modules[module_name] = module  # dataclasses look their module up while the file runs
    try:
        sys.argv = [str(path(name))] + list(argv or [])
        exec(compile(text, str(path(name)), "exec"), module.__dict__)
    finally:
        sys.argv = saved_argv
        for stub, previous in saved.items():
            if previous is None:
                del sys.modules[stub]
            else:
                sys.modules[stub] = previous
    return module


def load_package(package, files, T):
    """A program that is a package (its files import each other as `package.file`): the files, in
    dependency order, under their own dotted names (relative imports resolved in the package); a fresh
    copy per call (and per library)."""
    for name in [k for k in sys.modules if k == package or k.startswith(package + ".")]:
        del sys.modules[name]
    root = types.ModuleType(package)
    root.__path__ = []
    sys.modules[package] = root
    for stem in files:
        setattr(root, stem, load(f"{package}/{stem}.py", T, f"{package}.{stem}", package=package))
    return root
