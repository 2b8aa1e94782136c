"""Mondrian Explorer: the entry point (``streamlit run app.py``).

The pages are listed in :mod:`explorer_ui.navigation`; each file in ``pages/`` is one view.
"""
import os

from mondrian_core._blas import pin_blas_threads_for_process

# One BLAS thread per computation: the server runs one script thread per user, and BLAS
# threads on top of them fight for the cores (see mondrian_core/_blas.py).
pin_blas_threads_for_process()

import streamlit as st  # noqa: E402

from explorer_ui.compute import taking_turns  # noqa: E402
from explorer_ui.navigation import app_pages, inside_app  # noqa: E402
from explorer_ui.session_client import prewarm_in_background  # noqa: E402
from explorer_ui.widgets import FOCUS_CSS  # noqa: E402

st.set_page_config(page_title="Mondrian Explorer", page_icon="\u25A6", layout="wide")
# `streamlit run app.py` has no start-up hook: the first browser session starts the
# prewarm of every page's default link (the console command starts it at start-up).
if st.context.headers and os.environ.get("MONDRIAN_PREWARM", "1") != "0":
    prewarm_in_background(f"http://127.0.0.1:{st.get_option('server.port')}"
                          f"{st.get_option('server.baseUrlPath').rstrip('/')}")
page = st.navigation(app_pages())
st.html(FOCUS_CSS)  # a visible keyboard focus on every page
# Pages run one at a time (explorer_ui/turns.py): a class's twenty script threads at once
# cost up to 2.6x more CPU per page, fighting for Python's one running thread.
with taking_turns(), inside_app(page.title):
    page.run()
