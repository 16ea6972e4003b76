"""docs/architecture.md: ``forestviz.explain`` imports no model package. Every module of it is
read as source (ast, nothing imported), every import statement in it, at the top or inside a
function, is resolved to the module it names, and none may be a model family's package."""

import ast
from pathlib import Path

import forestviz
import forestviz.explain

MODEL_PACKAGES = ("forestviz.attention", "forestviz.enhanced", "forestviz.boosting")


def explain_modules() -> list[Path]:
    return sorted(Path(forestviz.explain.__file__).parent.rglob("*.py"))


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


def is_model_package(name: str) -> bool:
    return any(name == package or name.startswith(package + ".") for package in MODEL_PACKAGES)


def test_no_explain_module_imports_a_model_package():
    modules = explain_modules()
    assert len(modules) > 30 and any(p.parent.name == "plots" for p in modules)
    offending = {module_name(path): sorted(filter(is_model_package, imported_names(path)))
                 for path in modules}
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
