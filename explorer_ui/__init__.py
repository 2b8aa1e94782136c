"""What the pages share: URL-bound widgets, data pickers, cached sweeps, sharing and
export, and the app's navigation. Streamlit lives here and in ``pages/``, never in
``mondrian_core``."""
