"""Paper lab: the papers' figures, live, on synthetic and bundled data."""

import numpy as np
import pandas as pd
import streamlit as st
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from forestviz.attention import AttentionForestRegressor
from forestviz.enhanced import EnhancedForestClassifier
from forestviz.explain import plots
from forestviz.explain.treeviz import TreeContext, TreeRenderError, render_tree
from forestviz.io.bundled import list_datasets, load_dataset
from forestviz.io.preprocessing import TablePreprocessor
from forestviz.trees import DecisionMachine
from ui import models
from ui.display import as_text

SEED = 0
SYNTHETIC = [info for info in list_datasets() if info.source.startswith("scikit-learn make_")]


def numeric(name: str):
    """A bundled data set as (encoded X, y, feature names, target, classes)."""
    dataset = load_dataset(name)
    pre = TablePreprocessor().fit(dataset.X)
    return (pre.transform(dataset.X), dataset.y.to_numpy(),
            [str(n) for n in pre.get_feature_names_out()], dataset.target, dataset.classes)


@st.cache_data(show_spinner="Fitting a 3-tree attention forest…", max_entries=32)
def three_tree_weights(name: str, eps: float, row: int):
    """(D, w, α) of one row under a 3-tree ABRF-1 at contamination ``eps`` (τ chosen)."""
    X, y, *_ = numeric(name)
    model = AttentionForestRegressor(3, eps=eps, random_state=SEED).fit(X, y)
    D, contamination = model.tree_weight_parts(X[row:row + 1])
    D = D[0] / (1.0 - eps) if eps < 1.0 else np.full(3, 1.0 / 3)
    return D, model.w_, contamination[0] + (1.0 - eps) * D


@st.cache_data(show_spinner="Searching ε and τ (ABRF-1, 50 trees)…", max_entries=8)
def eps_tau_search(name: str):
    """The ε–τ grid of ABRF-1 on a synthetic set, Var(y), and α, D of a few held-out rows."""
    X, y, *_ = numeric(name)
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.25, random_state=SEED)
    model = AttentionForestRegressor(50, random_state=SEED).fit(X_train, y_train)
    D, contamination = model.tree_weight_parts(X_test[:10])
    eps = model.eps_
    softmax = D / (1.0 - eps) if eps < 1.0 else np.full_like(D, 1.0 / D.shape[1])
    return model.search_results_, float(np.var(y_train)), D + contamination, softmax, eps


@st.cache_data(show_spinner="Training an Enhanced RF on the clinical table…", max_entries=2)
def erf_rounds(rounds: int):
    X, y, *_ = numeric("pima_diabetes")
    model = EnhancedForestClassifier(50, n_iterations=rounds, early_stopping=False,
                                     random_state=SEED).fit(X, y)
    return model.history_, model.best_iteration_, model.tree_scores(X[:20]).S


@st.cache_resource(show_spinner=False, max_entries=8)
def small_tree(depth: int):
    """A depth-limited tree on the clinical table (shared read-only by all sessions)."""
    X, y, names, target, classes = numeric("pima_diabetes")
    tree = DecisionTreeClassifier(max_depth=depth, random_state=SEED).fit(X, y)
    context = TreeContext.from_data(X, y, feature_names=names, target_name=target,
                                    class_names=classes)
    return tree, context, X, names


def figure_one() -> None:
    st.header("ABRF Fig. 1: three trees on a triangle")
    st.markdown("With three trees, every weighting of the forest is a point of a triangle. The "
                "Softmax weights D come from how close the row is to each tree's leaf; training "
                "adds ε·w, so the final weights α can only lie in a small triangle around D "
                "whose size grows with ε.")
    left, right = st.columns(2)
    eps = left.slider("ε (contamination)", 0.0, 1.0, 0.3, step=0.05, key="lab_eps")
    row = right.slider("Row of Friedman 1", 0, 99, 0, key="lab_row")
    D, w, alpha = three_tree_weights("friedman1", eps, row)
    st.plotly_chart(plots.simplex_figure(D, w, eps, alpha=alpha), key="lab_simplex")


def figures_two_three() -> None:
    st.header("ABRF Fig. 2 and 3: choosing ε and τ, and where the attention goes")
    st.markdown("Fig. 2 plots the held-out accuracy (R²) against the temperature τ for each ε: a "
                "small τ makes the weights pick the closest trees, a large τ spreads them evenly "
                "as in a plain forest. Fig. 3 smooths the weights along the tree number: peaks "
                "show which trees the trained attention favours for one row, compared with the "
                "untrained Softmax weights.")
    names = {info.name: info.title for info in SYNTHETIC}
    name = st.selectbox("Synthetic data set", list(names), format_func=names.get,
                        key="lab_dataset")
    results, variance, alpha, softmax, eps = eps_tau_search(name)
    st.plotly_chart(plots.tau_curves(results, target_variance=variance), key="lab_tau")
    row = st.slider("Held-out row", 0, alpha.shape[0] - 1, 0, key="lab_kde_row")
    st.plotly_chart(plots.attention_kde(alpha[row], softmax[row]), key="lab_kde")
    st.caption(f"Chosen ε = {eps:.2f}.")


def erf_weights() -> None:
    st.header("ERF: sample weights over the rounds, and the top-scoring trees")
    st.markdown("The Enhanced RF reweights the training rows after each forest: rows it "
                "misclassifies gain weight, so later forests look harder at them. The bands "
                "show how the weights spread out; the kept round has the best validation AUC. "
                "For one row, each tree's score S counts how often it ranks among the best trees "
                "of the row's nearest training neighbours.")
    rounds = st.slider("Rounds", 2, 10, 5, key="lab_erf_rounds")
    history, best, scores = erf_rounds(rounds)
    st.plotly_chart(plots.erf_history(history, best), key="lab_erf_history")
    row = st.slider("Clinical row", 0, scores.shape[0] - 1, 0, key="lab_erf_row")
    st.plotly_chart(plots.tree_weight_bars(scores[row], label="tree score S",
                                           share_of_prediction=False), key="lab_erf_scores")


def decision_machine() -> None:
    st.header("A Decision Machine: a tree as matrices")
    st.markdown("Each internal node is a test: the selection matrix S picks its feature and t "
                "holds its threshold, so h = sgn(S·x − t) answers every test at once. Each leaf "
                "is a row of the template B (+1 right, −1 left, 0 not on its path); the row's "
                "leaf is the one where B·h equals the leaf's depth.")
    left, right = st.columns(2)
    depth = left.slider("Tree depth", 1, 3, 2, key="lab_depth")
    tree, context, X, names = small_tree(depth)
    row = right.slider("Clinical row", 0, X.shape[0] - 1, 0, key="lab_dm_row")
    machine = DecisionMachine.from_estimator(tree, feature_names=names)
    x = X[row]
    h = np.where(x[machine.test_feature] > machine.thresholds, 1, -1)
    tests = [f"test {j + 1}" for j in range(machine.thresholds.size)]
    leaves = [f"leaf {i + 1}" for i in range(machine.leaf_nodes.size)]
    B = machine.templates.toarray().astype(int)
    reached = B @ h == machine.leaf_depth
    drawing, matrices = st.columns([1, 1])
    try:
        drawing.image(render_tree(tree, 0, x, context=context, mode="full"), width="content")
    except TreeRenderError as err:
        drawing.warning(as_text(err), icon=":material/warning:")
    matrices.markdown("**S** (tests × features) and **t**")
    matrices.dataframe(pd.DataFrame(machine.selection.toarray().astype(int), index=tests,
                                    columns=names).assign(t=machine.thresholds), key="lab_S")
    matrices.markdown("**B** (leaves × tests), with B·h for this row")
    matrices.dataframe(pd.DataFrame(B, index=leaves, columns=tests).assign(
        **{"B·h": B @ h, "depth": machine.leaf_depth, "this row's leaf": reached}), key="lab_B")
    matrices.caption(as_text("h for this row: " + ", ".join(
        f"{name} {'+1' if value > 0 else '−1'}" for name, value in zip(tests, h, strict=True))))


models.follow_jobs()
st.title("Paper lab")
st.caption("The papers' pictures, recomputed live. Each section trains its own small model.")
figure_one()
figures_two_three()
erf_weights()
decision_machine()
