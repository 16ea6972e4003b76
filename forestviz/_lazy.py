"""Package faces that import on first use.

A package of forestviz names its public names and the modules that define them; a name is
imported when it is first asked for, so ``import forestviz`` (and any package of it) stays
cheap, and reading one module does not load its siblings' dependencies.
"""

from importlib import import_module


def lazy_exports(package: str, exports: dict[str, str]):
    """``(__getattr__, __dir__, __all__)`` for ``package``, whose public names live in the
    modules that ``exports`` maps them to (full dotted names)."""
    names = sorted(exports)

    def __getattr__(name):
        if name in exports:
            return getattr(import_module(exports[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return names

    return __getattr__, __dir__, names
