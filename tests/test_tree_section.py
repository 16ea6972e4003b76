"""The tree section written once (issue 26, item 7): each section's numbers are the
explanation's own, the same sections follow a tree choice, and the report renders them."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier

from forestviz.enhanced import EnhancedForestClassifier
from forestviz.explain import TrainingSummary, explain
from forestviz.explain.report.document import to_html
from forestviz.explain.row.tree_choice import choose_trees
from forestviz.explain.row.tree_section import MARGIN, tree_sections


def _explained(model, row=0):
    X, y = make_classification(300, 5, n_informative=3, random_state=2)
    y = np.array(["benign", "malignant"])[y]
    summary = TrainingSummary.from_data(model.fit(X, y), X, y)
    x = X[row].copy()
    x[1] = np.nan
    return explain(model, x, summary=summary, n_alternatives=2), summary


@pytest.mark.slow
def test_each_section_holds_the_explanations_numbers():
    e, _ = _explained(EnhancedForestClassifier(12, n_iterations=2, random_state=0))
    sections = tree_sections(e)
    assert [s.tree for s in sections] == e.top_trees.tolist()
    for section, steps, others in zip(sections, e.paths, e.alternatives, strict=True):
        k = section.tree
        assert section.title == (f"Tree {k + 1}: weight {e.tree_weights[k]:.3f}, "
                                 f"score S {e.tree_scores.S[k]:.3f}")
        p = e.tree_predictions[k]
        assert section.says == f"P(benign) = {p[0]:.2f}, P(malignant) = {p[1]:.2f}"
        assert section.path["test"].tolist() == [e.step_sentence(s) for s in steps]
        assert section.path[MARGIN].tolist() == [s.texts()[2] for s in steps]
        assert section.path["depth"].tolist() == [s.depth for s in steps]
        assert section.fragile == tuple(s.fragile for s in steps) and sum(section.fragile) == 1
        assert section.fragile_test == e.step_sentence(next(s for s in steps if s.fragile))
        assert len(section.alternatives) == len(others)
        for said, other in zip(section.alternatives, others, strict=True):
            q = np.asarray(other.prediction)
            assert said == (f"if {e.flips_sentence(other)}, this tree would say "
                            f"P(benign) = {q[0]:.2f}, P(malignant) = {q[1]:.2f}")
    html = to_html(e, appendix=True)
    for section in sections:
        assert f"<h3>{section.title}; this tree says {section.says}</h3>" in html


def test_sections_follow_a_tree_choice():
    e, summary = _explained(RandomForestClassifier(15, random_state=0))
    choice = choose_trees(e, summary)
    sections = tree_sections(e, choice)
    assert tuple(s.tree for s in sections) == choice.trees
    for section, steps in zip(sections, choice.paths, strict=True):
        assert section.path["test"].tolist() == [e.step_sentence(s) for s in steps]
    imputed = [t for s in sections for t in s.path["test"] if t.startswith("x1 is missing")]
    assert all("(imputed as " in t for t in imputed)
