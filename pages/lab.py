"""Paper lab: the papers' figures, live, on synthetic and bundled data. Each section is a
fragment: its sliders rerun that section only."""

import streamlit as st

from forestviz.app import lab
from forestviz.explain import plots
from forestviz.explain.treeviz import TreeRenderError, render_tree
from ui import models, signin
from ui.charts import chart
from ui.display import as_text
from ui.lab_models import three_tree_forest

signin.guard("lab")


@st.cache_data(show_spinner="Searching ε and τ (ABRF-1, 50 trees)…", max_entries=8)
def eps_tau_search(name: str):
    return lab.eps_tau_search(name)


@st.cache_data(show_spinner="Training an Enhanced RF on the clinical table…", max_entries=2)
def erf_rounds(rounds: int):
    return lab.erf_rounds(rounds)


@st.cache_resource(show_spinner=False, max_entries=8)
def small_tree(depth: int):
    """Shared read-only by all sessions."""
    return lab.small_tree(depth)


@st.fragment
def figure_one() -> None:
    st.header("ABRF Fig. 1: three trees on a triangle", anchor=False)
    st.markdown("With three trees, every weighting of the forest is a point of a triangle. The "
                "Softmax weights D come from how close the row is to each tree's leaf; training "
                "adds ε·w, so the final weights α can only lie in a small triangle around D "
                "whose size grows with ε.")
    left, right = st.columns(2)
    eps = left.slider("ε (contamination)", 0.0, 1.0, 0.3, step=0.05, key="lab_eps")
    row = right.slider("Row of Friedman 1", 0, 99, 0, key="lab_row")
    model, X = three_tree_forest("friedman1", eps)
    D, w, alpha = lab.three_tree_weights(model, X[row])
    chart(plots.simplex_figure(D, w, eps, alpha=alpha), key="lab_simplex")


@st.fragment
def figures_two_three() -> None:
    st.header("ABRF Fig. 2 and 3: choosing ε and τ, and where the attention goes", anchor=False)
    st.markdown("Fig. 2 plots the held-out accuracy (R²) against the temperature τ for each ε: a "
                "small τ makes the weights pick the closest trees, a large τ spreads them evenly "
                "as in a plain forest. Fig. 3 smooths the weights along the tree number: peaks "
                "show which trees the trained attention favours for one row, compared with the "
                "untrained Softmax weights.")
    names = {info.name: info.title for info in lab.synthetic_datasets()}
    name = st.selectbox("Synthetic data set", list(names), format_func=names.get,
                        key="lab_dataset")
    results, variance, alpha, softmax, eps, plain = eps_tau_search(name)
    chart(plots.tau_curves(results, target_variance=variance), key="lab_tau")
    row = st.slider("Held-out row", 0, alpha.shape[0] - 1, 0, key="lab_kde_row")
    chart(plots.attention_kde(alpha[row], softmax[row]), key="lab_kde")
    st.caption("The search kept the plain forest (equal tree weights): no ε and τ beat it by "
               "more than the standard error on the held-out rows, so α is flat; "
               "Fig. 2 shows what each setting would have scored." if plain else
               f"Chosen ε = {eps:.2f}.")


@st.fragment
def erf_weights() -> None:
    st.header("ERF: sample weights over the rounds, and the top-scoring trees", anchor=False)
    st.markdown("The Enhanced RF reweights the training rows after each forest: rows it "
                "misclassifies gain weight, so later forests look harder at them. The bands "
                "show how the weights spread out; the star marks the kept round, the earliest "
                "whose validation AUC is within one standard error of the best. For one row, "
                "each tree's score S counts how often it ranks among the best trees of the "
                "row's nearest training neighbours.")
    rounds = st.slider("Rounds", 2, 10, 5, key="lab_erf_rounds")
    history, best, scores = erf_rounds(rounds)
    chart(plots.erf_history(history, best), key="lab_erf_history")
    row = st.slider("Clinical row", 0, scores.shape[0] - 1, 0, key="lab_erf_row")
    chart(plots.tree_weight_bars(scores[row], label="tree score S",
                                           share_of_prediction=False), key="lab_erf_scores")


@st.fragment
def decision_machine() -> None:
    st.header("A Decision Machine: a tree as matrices", anchor=False)
    st.markdown("Each internal node is a test: the selection matrix S picks its feature and t "
                "holds its threshold, so h = sgn(S·x − t) answers every test at once. Each leaf "
                "is a row of the template B (+1 right, −1 left, 0 not on its path); the row's "
                "leaf is the one where B·h equals the leaf's depth.")
    left, right = st.columns(2)
    depth = left.slider("Tree depth", 1, 3, 2, key="lab_depth")
    tree, context, X, names = small_tree(depth)
    row = right.slider("Clinical row", 0, X.shape[0] - 1, 0, key="lab_dm_row")
    x = X[row]
    view = lab.machine_view(tree, names, x)
    drawing, matrices = st.columns([3, 2])
    try:  # the drawing across its column: at its own size it reads too small
        drawing.image(render_tree(tree, 0, x, context=context, mode="full"), width="stretch",
                      alt=f"The whole depth-{depth} tree with clinical row {row}'s path; its "
                          "tests are the rows of S and t beside it.")
    except TreeRenderError as err:
        drawing.warning(as_text(err), icon=":material/warning:")
    matrices.markdown("**S** (tests × features) and **t**")
    matrices.dataframe(view.selection, key="lab_S")
    matrices.markdown("**B** (leaves × tests), with B·h for this row")
    matrices.dataframe(view.templates, key="lab_B")
    matrices.caption(as_text("h for this row: " + ", ".join(
        f"{name} {'+1' if value > 0 else '−1'}"
        for name, value in zip(view.selection.index, view.outcomes, strict=True))))


models.follow_jobs()
st.title("Paper lab", anchor=False)
st.caption("The papers' pictures, recomputed live. Each section trains its own small model.")
figure_one()
figures_two_three()
erf_weights()
decision_machine()
