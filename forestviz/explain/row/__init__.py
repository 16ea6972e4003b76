"""One row explained: the :class:`~.explanation.Explanation` (which trees
carry the prediction, how much, and why), read off any model through the weighted-ensemble
protocol; what it needs from the training data (``summary``); its words (``columns``,
``narrative``, ``reasons``, ``imputed``, ``familiar``, ``uncertainty``); the clinician's
:class:`~.glance.Glance`; which trees to show (``tree_choice``,
``tree_section``) and the :class:`~.view.ExplainView` below the summary,
with its charts (``figures``)."""
