"""Small fits of every model family the weighted-ensemble protocol covers, shared by the
protocol's and the contributions' tests: name → (make the model, make the data)."""

from sklearn.datasets import make_classification, make_friedman1
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)

from forestviz.attention import AttentionForestClassifier, AttentionForestRegressor
from forestviz.boosting import AttentionBoostingRegressor
from forestviz.enhanced import EnhancedForestClassifier

T = 12


def classification(n_classes=2):
    return make_classification(240, 6, n_informative=4, n_classes=n_classes, random_state=1)


def friedman():
    return make_friedman1(240, n_features=6, random_state=1)


MODELS = {
    "rf-classifier": (lambda: RandomForestClassifier(T, random_state=0), classification),
    "rf-regressor": (lambda: RandomForestRegressor(T, random_state=0), friedman),
    "et-regressor": (lambda: ExtraTreesRegressor(T, random_state=0), friedman),
    "rf-3-classes": (lambda: RandomForestClassifier(T, random_state=0), lambda: classification(3)),
    "et-3-classes": (lambda: ExtraTreesClassifier(T, random_state=0), lambda: classification(3)),
    "abrf1-regressor": (lambda: AttentionForestRegressor(T, eps=0.4, tau=2.0, random_state=0),
                        friedman),
    "abrf1-classifier": (lambda: AttentionForestClassifier(T, random_state=0), classification),
    "softmax-regressor": (lambda: AttentionForestRegressor(T, mode="softmax", random_state=0),
                          friedman),
    "erf": (lambda: EnhancedForestClassifier(T, n_iterations=2, random_state=0), classification),
    "erf-unweighted": (lambda: EnhancedForestClassifier(T, n_iterations=2, model_weighting=False,
                                                        random_state=0), classification),
    "agboost": (lambda: AttentionBoostingRegressor(T, random_state=0), friedman),
}
