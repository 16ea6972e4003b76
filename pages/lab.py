"""Paper lab: the papers' figures, live, on synthetic and bundled data. Each section is a
fragment: its sliders rerun that section only."""

import streamlit as st

from forestviz.app import lab
from forestviz.explain import plots
from forestviz.explain.drawing.treeviz import TreeRenderError, render_tree
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


def heading(name: str) -> None:
    """A figure's title, what it shows and what to try (:data:`forestviz.app.lab.FIGURES`)."""
    figure = lab.FIGURES[name]
    st.header(figure.title, anchor=False)
    st.markdown(figure.shows)
    st.info(f"**Try:** {figure.tries}", icon=":material/lightbulb:")


@st.fragment
def figure_one() -> None:
    heading("simplex")
    left, right = st.columns(2)
    eps = left.slider("ε (contamination)", 0.0, 1.0, 0.3, step=0.05, key="lab_eps")
    row = right.slider("Row of Friedman 1", 0, 99, 0, key="lab_row")
    model, X = three_tree_forest("friedman1", eps)
    D, w, alpha = lab.three_tree_weights(model, X[row])
    chart(plots.simplex_figure(D, w, eps, alpha=alpha), key="lab_simplex")


@st.fragment
def figures_two_three() -> None:
    heading("search")
    names = {info.name: info.title for info in lab.synthetic_datasets()}
    name = st.selectbox("Synthetic data set", list(names), format_func=names.get,
                        index=list(names).index(lab.SHOWING), key="lab_dataset")
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
    heading("erf")
    rounds = st.slider("Rounds", 2, 10, 5, key="lab_erf_rounds")
    history, best, scores = erf_rounds(rounds)
    chart(plots.erf_history(history, best), key="lab_erf_history")
    row = st.slider("Clinical row", 0, scores.shape[0] - 1, 0, key="lab_erf_row")
    chart(plots.tree_weight_bars(scores[row], label="tree score S",
                                           share_of_prediction=False), key="lab_erf_scores")


@st.fragment
def decision_machine() -> None:
    heading("machine")
    left, right = st.columns(2)
    depth = left.slider("Tree depth", 1, 3, 2, key="lab_depth")
    tree, context, X, names = small_tree(depth)
    row = right.slider("Clinical row", 0, X.shape[0] - 1, 0, key="lab_dm_row")
    x = X[row]
    view = lab.machine_view(tree, names, x)
    drawing = st.container(key="lab_dm_drawing")
    try:  # the drawing in a row of its own, across the page: in a column it read too small
        drawing.image(lab.trimmed(render_tree(tree, 0, x, context=context, mode="full")),
                      width="stretch",
                      alt=f"The whole depth-{depth} tree with clinical row {row}'s path; its "
                          "tests are the rows of S and t below it.")
    except TreeRenderError as err:
        drawing.warning(as_text(err), icon=":material/warning:")
    tests, leaves = st.columns(2)
    tests.markdown("**S** (tests × features) and **t**")
    tests.dataframe(view.selection, key="lab_S")
    leaves.markdown("**B** (leaves × tests), with B·h for this row")
    leaves.dataframe(view.templates, key="lab_B")
    leaves.caption(as_text("h for this row: " + ", ".join(
        f"{name} {'+1' if value > 0 else '−1'}"
        for name, value in zip(view.selection.index, view.outcomes, strict=True))))


models.follow_jobs()
st.title("Paper lab", anchor=False)
st.caption("The papers' pictures, recomputed live. Each section trains its own small model.")
figure_one()
figures_two_three()
erf_weights()
decision_machine()
