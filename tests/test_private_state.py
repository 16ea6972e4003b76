"""No module under ``forestviz/`` reads or writes another object's private state (issue 40): an
attribute whose name starts with one underscore is reached only through ``self`` or ``cls``,
whether written ``x._name`` or ``getattr(x, "_name")``. An estimator gives its helper modules
a documented public surface instead (the "For its helper modules" paragraph of its class
docstring). The few exceptions are listed exactly, each with its reason, and an exception
that no longer occurs must leave the list."""

import ast
from pathlib import Path

import forestviz

ROOT = Path(forestviz.__file__).parent
BY_NAME = ("getattr", "setattr", "hasattr", "delattr")
EXCEPTIONS = {  # (module's file name, expression): why it is not another object's private state
    ("jobs.py", "job._abandoned"): "JobPool drives the Job class of its own module",
    ("jobs.py", "job._cancel"): "JobPool drives the Job class of its own module",
    ("jobs.py", "job._done"): "JobPool drives the Job class of its own module",
    ("jobs.py", "job._finish"): "JobPool drives the Job class of its own module",
    ("chain.py", "verdict._break"): "the chain's walk fills the Verdict of its own module",
    ("familiar.py", "found._combine"): "found is copy.copy(self), the same object's kind",
    ("worker.py", "os._exit"): "the standard library's public exit without clean-up",
    ("model_weighting.py", "TreeScores._fields"): "a NamedTuple's public field names",
}


def private(name) -> bool:
    return isinstance(name, str) and name.startswith("_") and not name.startswith("__")


def reaches(root: Path = ROOT) -> set[tuple[str, str]]:
    """(file name of a module under ``root``, expression) of every private attribute reached
    through anything but ``self`` or ``cls`` (by file name, so that a module moving to another
    package keeps its exceptions)."""
    found = set()
    for path in sorted(root.rglob("*.py")):
        module = path.name
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and private(node.attr) and not (
                    isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.add((module, ast.unparse(node)))
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id in BY_NAME and len(node.args) > 1
                  and isinstance(node.args[1], ast.Constant) and private(node.args[1].value)
                  and ast.unparse(node.args[0]) not in ("self", "cls")):
                found.add((module, f"{node.func.id}({ast.unparse(node.args[0])}, "
                                   f"{node.args[1].value!r})"))
    return found


def test_no_module_reaches_into_another_objects_private_state():
    found = reaches()
    assert sorted(found - EXCEPTIONS.keys()) == []
    assert sorted(EXCEPTIONS.keys() - found) == []  # an exception gone leaves the list


def test_the_walk_sees_every_way_of_reaching_private_state(tmp_path):
    (tmp_path / "helper.py").write_text(
        "def f(model, self):\n"
        "    model._mean = self._scale\n"  # a write, and self's own
        "    model.forest_._trees.append(getattr(model, '_values'))\n"
        "    setattr(model, '_task', hasattr(self, '_task'))\n"
        "    return model.__class__, model.public_, model.n_jobs\n", encoding="utf-8")
    assert reaches(tmp_path) == {
        ("helper.py", "model._mean"), ("helper.py", "model.forest_._trees"),
        ("helper.py", "getattr(model, '_values')"), ("helper.py", "setattr(model, '_task')")}
