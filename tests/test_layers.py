"""The layers of docs/architecture.md, checked against the code: the ``layers`` list there,
top to bottom, and every import statement under ``forestviz/`` (read as source with ast, at the
top of a module or inside a function, relative imports resolved): a package imports only
packages on lines below its own, packages on one line do not import each other, every package
is on one line; nothing under ``forestviz/`` imports Streamlit or the app's ``ui`` and
``pages``; no module passes 400 lines. And one rule the list cannot say, of two columns of the
diagram side by side: ``forestviz.explain`` imports no model package (it reads every model
through ``forestviz.trees``)."""

import ast
import re
from pathlib import Path

import pytest

import forestviz

ROOT = Path(forestviz.__file__).parent
DOC = ROOT.parent / "docs" / "architecture.md"
MAX_LINES = 400
OUTSIDE = ("streamlit", "ui", "pages")
MODEL_PACKAGES = ("forestviz.attention", "forestviz.enhanced", "forestviz.boosting")


def module_name(path: Path) -> str:
    root = Path(forestviz.__file__).parent.parent
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_names(path: Path) -> set[str]:
    """Every module an import statement of ``path`` names: ``import a.b`` names a.b; ``from a
    import b`` names a and a.b (b may be a module); relative imports resolved against the
    module's package; the package face's lazy names resolved to their defining module."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found.add(base)
            for alias in node.names:
                found.add(f"{base}.{alias.name}")
                if base == "forestviz" and alias.name in forestviz._EXPORTS:
                    found.add(forestviz._EXPORTS[alias.name])
    return found


def layers() -> list[set[str]]:
    """The ``layers`` block of docs/architecture.md: a set of packages per line, top first."""
    block = re.search(r"```layers\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert block is not None, "docs/architecture.md has no ```layers block"
    return [set(line.split(" · ")) for line in block[1].splitlines() if line.strip()]


def unit(name: str, root: Path = ROOT) -> str | None:
    """The package (or top-level module) of ``forestviz`` (at ``root``) that module ``name``
    belongs to."""
    parts = name.split(".")
    if parts[0] != "forestviz" or len(parts) < 2:
        return None
    exists = (root / parts[1]).is_dir() or (root / f"{parts[1]}.py").exists()
    return f"forestviz.{parts[1]}" if exists else None


def modules(root: Path = ROOT) -> list[Path]:
    return sorted(root.rglob("*.py"))


def imports(root: Path = ROOT) -> dict[tuple[str, str], set[str]]:
    """(importing package, imported package) → the modules whose statements make that edge."""
    found: dict[tuple[str, str], set[str]] = {}
    for path in modules(root):
        here = unit(module_name(path), root)
        for name in imported_names(path):
            there = unit(name, root)
            if here is not None and there is not None and there != here:
                found.setdefault((here, there), set()).add(module_name(path))
    return found


def test_every_package_is_on_one_line_of_the_list():
    listed = [name for line in layers() for name in line]
    assert len(listed) == len(set(listed))
    packages = {unit(module_name(path)) for path in modules()} - {None}
    assert set(listed) == packages


@pytest.mark.slow
def test_imports_run_only_downward():
    rank = {name: i for i, line in enumerate(layers()) for name in line}
    upward = {f"{a} imports {b}": sorted(where) for (a, b), where in imports().items()
              if rank[b] <= rank[a]}
    assert upward == {}


def test_the_library_imports_no_streamlit_ui_or_pages():
    offending = {}
    for path in modules():
        found = sorted(n for n in imported_names(path)
                       if n.split(".")[0] in OUTSIDE)
        if found:
            offending[module_name(path)] = found
    assert offending == {}


@pytest.mark.parametrize("folder", ["forestviz", "ui", "pages"])
def test_no_module_passes_400_lines(folder):
    long = {str(p.relative_to(ROOT.parent)): n for p in sorted((ROOT.parent / folder).rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_the_reader_finds_an_upward_import_and_a_streamlit_import(tmp_path, monkeypatch):
    """The checks catch what they forbid: a module of trees importing the app inside a
    function, relatively, and one importing Streamlit."""
    fake = tmp_path / "forestviz"
    for package in ("trees", "app"):
        (fake / package).mkdir(parents=True)
        (fake / package / "__init__.py").write_text("")
    (fake / "__init__.py").write_text("")
    (fake / "trees" / "late.py").write_text("def f():\n    from ..app import workbench\n")
    (fake / "app" / "page.py").write_text("import streamlit as st\n")
    monkeypatch.setattr(forestviz, "__file__", str(fake / "__init__.py"))
    assert imports(fake) == {("forestviz.trees", "forestviz.app"): {"forestviz.trees.late"}}
    assert "streamlit" in imported_names(fake / "app" / "page.py")


def is_model_package(name: str) -> bool:
    return any(name == package or name.startswith(package + ".") for package in MODEL_PACKAGES)


def test_no_explain_module_imports_a_model_package():
    explain = sorted((ROOT / "explain").rglob("*.py"))
    assert len(explain) > 30 and any(p.parent.name == "plots" for p in explain)
    offending = {module_name(path): sorted(filter(is_model_package, imported_names(path)))
                 for path in explain}
    assert {name: found for name, found in offending.items() if found} == {}


def test_the_import_reader_sees_every_kind_of_import(tmp_path, monkeypatch):
    """The reader catches what the rule forbids, written in each way Python allows."""
    source = tmp_path / "forestviz" / "explain" / "plots" / "probe.py"
    source.parent.mkdir(parents=True)
    source.write_text(
        "import forestviz.enhanced.estimator\n"
        "from forestviz.attention import weights\n"
        "from ...boosting.estimator import AttentionBoostingRegressor\n"
        "from forestviz import EnhancedForestClassifier\n"
        "def late():\n"
        "    from forestviz import boosting\n", encoding="utf-8")
    monkeypatch.setattr(forestviz, "__file__", str(tmp_path / "forestviz" / "__init__.py"))
    assert set(filter(is_model_package, imported_names(source))) == {
        "forestviz.enhanced.estimator",  # import a.b, and the package face's lazy name
        "forestviz.attention", "forestviz.attention.weights",  # from a import b
        "forestviz.boosting.estimator",  # relative
        "forestviz.boosting.estimator.AttentionBoostingRegressor",
        "forestviz.boosting",  # inside a function
    }


EXPLAIN_TYPES_ONLY = {("row", "counterfactual"): {
    "forestviz.explain.row.glance": {"forestviz.explain.counterfactual",
                                     "forestviz.explain.counterfactual.WhatWouldChange"}}}
"""The one import against the sub-packages' order, named exactly: the Glance names the type of
the answer to "what would change it" for its annotations only (under TYPE_CHECKING)."""


def explain_edges(root: Path = ROOT) -> dict[tuple[str, str], dict[str, set[str]]]:
    """(importing, imported) sub-package of ``forestviz.explain`` → module → what it imports."""
    def sub(name: str) -> str | None:
        parts = name.split(".")
        inside = parts[:2] == ["forestviz", "explain"] and len(parts) > 2
        return parts[2] if inside and (root / "explain" / parts[2]).is_dir() else None

    found: dict[tuple[str, str], dict[str, set[str]]] = {}
    for path in sorted((root / "explain").rglob("*.py")):
        here = sub(module_name(path))
        for name in imported_names(path):
            there = sub(name)
            if here and there and there != here:
                found.setdefault((here, there), {}).setdefault(module_name(path), set()).add(
                    name)
    return found


def test_the_explain_sub_packages_import_in_one_order():
    """``forestviz.explain``'s sub-packages by idea (issue 40, item 5) form no cycle: the row
    sits on plots and counterfactual, the record and the whole model on the row."""
    edges = explain_edges()
    assert {("report", "row"), ("row", "plots"), ("whole", "row")} <= set(edges)
    assert all(edges.get(edge) == where for edge, where in EXPLAIN_TYPES_ONLY.items())
    cyclic = {edge: where for edge, where in edges.items() if edge[::-1] in edges
              and not {edge, edge[::-1]} & set(EXPLAIN_TYPES_ONLY)}
    assert cyclic == {}
