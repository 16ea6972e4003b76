"""Hostile model files that reference code: functions, calls, constructors, methods and
types a loader must never run or build (registered in ``hostile_models``)."""

from __future__ import annotations

from hostile_models import (
    NODE_IDS,
    call,
    edit,
    empty_dict,
    hostile,
    injected,
    list_of,
    node,
    nodes_where,
    retyped,
    tuple_of,
    value,
)


# ------------------------------------------------------------------ references to code
@hostile("function-check_output", "sklearn.utils._testing.check_output")
def function_check_output(legit, marker):
    return injected(legit, node("FunctionNode", "sklearn.utils._testing.check_output"))


@hostile("call-check_output-touch", "sklearn.utils._testing.check_output", executes=True)
def call_check_output_touch(legit, marker):
    return injected(legit, call("sklearn.utils._testing.check_output",
                                list_of(value("touch"), value(marker))))


@hostile("function-numpy-savetxt", "sklearn.externals.array_api_compat.numpy.savetxt")
def function_numpy_savetxt(legit, marker):
    return injected(legit, node("FunctionNode",
                                "sklearn.externals.array_api_compat.numpy.savetxt"))


@hostile("call-numpy-savetxt", "sklearn.externals.array_api_compat.numpy.savetxt",
         executes=True)
def call_numpy_savetxt(legit, marker):
    return injected(legit, call("sklearn.externals.array_api_compat.numpy.savetxt",
                                value(marker), list_of(value(1.0))))


@hostile("function-numpy-load", "sklearn.externals.array_api_compat.numpy.load")
def function_numpy_load(legit, marker):
    return injected(legit, node("FunctionNode", "sklearn.externals.array_api_compat.numpy.load"))


@hostile("function-scipy-savemat", "scipy.io.matlab._mio.savemat")
def function_scipy_savemat(legit, marker):
    return injected(legit, node("FunctionNode", "scipy.io.matlab._mio.savemat"))


@hostile("function-numpy-ufunc-trusted-by-skops", "numpy.add")
def function_numpy_ufunc_trusted_by_skops(legit, marker):
    return injected(legit, node("FunctionNode", "numpy.add"))


@hostile("constructor-os-system", "os.system", executes=True)
def constructor_os_system(legit, marker):
    return injected(legit, node("ConstructorFromReduceNode", "os.system",
                                content=tuple_of(value(f"touch '{marker}'"))))


@hostile("function-builtins-eval", "builtins.eval")
def function_builtins_eval(legit, marker):
    return injected(legit, node("FunctionNode", "builtins.eval"))


@hostile("constructor-builtins-exec", "builtins.exec", executes=True)
def constructor_builtins_exec(legit, marker):
    return injected(legit, node("ConstructorFromReduceNode", "builtins.exec",
                                content=tuple_of(value(f"open({marker!r}, 'w').close()"))))


@hostile("constructor-builtins-open", "builtins.open", executes=True)
def constructor_builtins_open(legit, marker):
    return injected(legit, node("ConstructorFromReduceNode", "builtins.open",
                                content=tuple_of(value(marker), value("w"))))


@hostile("call-numpy-save", "numpy.save", executes=True)
def call_numpy_save(legit, marker):
    return injected(legit, call("numpy.save", value(marker), list_of(value(1.0))))


@hostile("operator-attrgetter", "operator.attrgetter")
def operator_attrgetter(legit, marker):
    return injected(legit, node("OperatorFuncNode", "operator.attrgetter",
                                attrs=tuple_of(value("__globals__"))))


@hostile("operator-methodcaller", "operator.methodcaller")
def operator_methodcaller(legit, marker):
    return injected(legit, node("OperatorFuncNode", "operator.methodcaller",
                                attrs=tuple_of(value("system"), value(f"touch '{marker}'"))))


@hostile("partial-os-system", "functools.partial", "os.system")
def partial_os_system(legit, marker):
    return injected(legit, node("PartialNode", "functools.partial", content={
        "func": node("FunctionNode", "os.system"), "args": tuple_of(value(f"touch '{marker}'")),
        "kwds": empty_dict(), "namespace": empty_dict()}))


@hostile("function-importlib", "importlib.import_module")
def function_importlib(legit, marker):
    return injected(legit, node("FunctionNode", "importlib.import_module"))


@hostile("object-check_output", "sklearn.utils._testing.check_output")
def object_check_output(legit, marker):
    return injected(legit, node("ObjectNode", "sklearn.utils._testing.check_output",
                                content=empty_dict()))


@hostile("object-numpy-save", "numpy.save")
def object_numpy_save(legit, marker):
    return injected(legit, node("ObjectNode", "numpy.save"))


@hostile("object-function-transformer-trusted-by-skops",
         "sklearn.preprocessing._function_transformer.FunctionTransformer")
def object_function_transformer_trusted_by_skops(legit, marker):
    return injected(legit, node("ObjectNode",
                                "sklearn.preprocessing._function_transformer.FunctionTransformer",
                                content=empty_dict()))


@hostile("type-subprocess-popen", "subprocess.Popen")
def type_subprocess_popen(legit, marker):
    return injected(legit, node("TypeNode", "subprocess.Popen"))


@hostile("method-of-a-trusted-class",
         "forestviz.attention.estimators.AttentionForestRegressor (as a MethodNode)")
def method_of_a_trusted_class(legit, marker):
    def change(schema):
        estimator = schema["content"]["object"]["content"]["estimator"]
        schema["content"]["object"]["content"]["estimator"] = {
            **{key: estimator[key] for key in ("__class__", "__module__")},
            "__loader__": "MethodNode", "__id__": next(NODE_IDS),
            "content": {"func": "fit", "obj": estimator}}
    return edit(legit, change)


@hostile("random-generator", "numpy.random._generator.Generator")
def random_generator(legit, marker):
    return injected(legit, node("RandomGeneratorNode", "numpy.random._generator.Generator",
                                content={"bit_generator": empty_dict(),
                                         "seed_seq": empty_dict()}))


@hostile("nested-tree-as-counter", "collections.Counter")
def nested_tree_as_counter(legit, marker):
    return retyped(legit, "DecisionTreeRegressor", "collections.Counter")


@hostile("nested-preprocessor-as-popen", "subprocess.Popen")
def nested_preprocessor_as_popen(legit, marker):
    return retyped(legit, "TablePreprocessor", "subprocess.Popen")


def preprocessor_state(schema) -> dict:
    """The content (a dict node's entries) of the first TablePreprocessor node of ``schema``."""
    found = next(nodes_where(schema, lambda n: n.get("__class__") == "TablePreprocessor"))
    return found["content"]["content"]


@hostile("preprocessor-without-its-state", "table preprocessor is damaged")
def preprocessor_without_its_state(legit, marker):
    """skops builds an object without calling ``__setstate__`` when its node has no content."""
    def change(schema):
        found = next(nodes_where(schema, lambda n: n.get("__class__") == "TablePreprocessor"))
        del found["content"]
    return edit(legit, change)


@hostile("preprocessor-level-not-text", "levels are damaged")
def preprocessor_level_not_text(legit, marker):
    def change(schema):
        levels = preprocessor_state(schema)["categories_"]["content"]
        first = next(iter(levels.values()))
        first["content"][0] = list_of(value("a list where a level goes"))
    return edit(legit, change)


@hostile("preprocessor-median-not-finite", "medians or levels are damaged")
def preprocessor_median_not_finite(legit, marker):
    def change(schema):
        medians = preprocessor_state(schema)["medians_"]["content"]
        next(iter(medians.values()))["content"] = "Infinity"
    return edit(legit, change)


@hostile("preprocessor-levels-fit-never-makes", "not ones fit makes")
def preprocessor_levels_fit_never_makes(legit, marker):
    """Kept levels out of order: fitting the encoder again gives other levels than saved."""
    def change(schema):
        levels = preprocessor_state(schema)["categories_"]["content"]
        kept = next(content for content in levels.values() if len(content["content"]) > 1)
        kept["content"].reverse()
    return edit(legit, change)


@hostile("preprocessor-foreign-field", "other fields than it writes")
def preprocessor_foreign_field(legit, marker):
    """An attribute the plain state never has (the old layout's encoded names, say)."""
    def change(schema):
        state = next(nodes_where(
            schema, lambda n: n.get("__class__") == "TablePreprocessor"))["content"]
        state["content"]["feature_names_out_"] = tuple_of(value("x"))
        state["key_types"]["content"].append(node("TypeNode", "builtins.str"))
    return edit(legit, change)


@hostile("preprocessor-too-wide-to-rebuild", "more than forestviz reads")
def preprocessor_too_wide_to_rebuild(legit, marker):
    """Its types pass, but fitting it again would encode 3,300 rows x over 1,650 columns (over
    MAX_REBUILD_CELLS); kept small, so that building the refused file stays cheap."""
    def change(schema):
        state = preprocessor_state(schema)
        state["max_levels"] = state["max_text_levels"] = value(10**6)
        levels = state["categories_"]["content"]
        column = next(iter(levels))
        levels[column] = tuple_of(*(value(f"level {i:04d}") for i in range(1_650)))
        state["other_levels_"]["content"].pop(column, None)
    return edit(legit, change)
