"""Models: the published models (name, version, data set, metrics, publisher, date, status)
and the chosen version's model card; open one straight into the Explain page, or, as an
admin, retire one."""

import streamlit as st

from ui import card_view, catalog, library, models, signin

signin.guard("models")

models.follow_jobs()
st.title("Models", anchor=False)
st.caption("Models published from the Train page. Opening one explains its held-out rows, new "
           "patients or a CSV of patients at once: no upload, no training.")
catalog.open_asked()  # before the list: it may have changed since the click
versions = catalog.visible_versions()
if versions is None:
    st.info("No published models can be opened while the model library is unavailable.",
            icon=":material/cloud_off:")
    st.stop()
if not versions:
    st.info("No model has been published yet: train one on the Train page and publish it "
            "there.", icon=":material/info:")
    st.stop()
st.dataframe(catalog.versions_table(versions), hide_index=True, key="models_table")
info = catalog.choose_version(versions, key="models_choice")
catalog.describe(info)
card_view.show_card(info, key="models_card")
held = library.published_ref(models.current_model())
if held is not None and held.ref == info.ref:
    st.caption("This is the session's current model.")
catalog.open_button(info, key="models_open")
catalog.retire_control(info, key="models_retire")
