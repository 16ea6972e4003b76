"""The whole model through its explanations (the Forest page and ``forestviz global``): the
population of explanations (``population``), partial dependence (``partial_dependence``),
cohorts (``cohorts``), how far to trust the neighbours' stability (``trust``), and the words
for what a fit chose (``selection_note``)."""
