"""Glossary: every term the app uses, in plain words, with where it comes from
(:mod:`forestviz.glossary`, the one table the tiles' help and the record's appendix read too,
and the library's own terms, :mod:`forestviz.store.glossary`)."""

import streamlit as st

from forestviz import glossary
from forestviz.store.glossary import entries
from ui import models, signin

signin.guard("glossary")

models.follow_jobs()
st.title("Glossary", anchor=False)
st.markdown("Every term the app shows, in plain words: what it means and where it comes from "
            "(the paper and its equation, or the part of forestviz that defines it).")
words = st.text_input("Find a term", key="glossary_find", placeholder="e.g. ε, Venn-ABERS")
found = glossary.find(entries(), words)
if not found:
    st.info("No term holds these words.", icon=":material/info:")
for section in glossary.SECTIONS:
    terms = [t for t in found if t.section == section]
    if terms:
        st.subheader(section, anchor=False)
        st.table(glossary.table(terms).set_index("term"))  # whole meanings, wrapped
