"""Mondrian Explorer: the entry point (``streamlit run app.py``).

The pages are listed in :mod:`explorer_ui.navigation`; each file in ``pages/`` is one view.
"""
from mondrian_core._blas import pin_blas_threads_for_process

# One BLAS thread per computation: the server runs one script thread per user, and BLAS
# threads on top of them fight for the cores (see mondrian_core/_blas.py).
pin_blas_threads_for_process()

import streamlit as st  # noqa: E402

from explorer_ui.navigation import app_pages, inside_app  # noqa: E402
from explorer_ui.widgets import chart_format_control, share_link  # noqa: E402

st.set_page_config(page_title="Mondrian Explorer", page_icon="\u25A6", layout="wide")
page = st.navigation(app_pages())
share_link()
chart_format_control()
with inside_app():
    page.run()
