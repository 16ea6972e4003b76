"""Streamlit glue for the forestviz pages: session state, caching and display helpers.

The computation lives in :mod:`forestviz`, which never imports Streamlit; this package is the only
place (besides ``app.py`` and ``pages/``) that does.
"""
