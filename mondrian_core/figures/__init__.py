"""Figure builders: pure functions from core results to plotly figures.

Nothing here imports Streamlit; every builder returns a
:class:`plotly.graph_objects.Figure` styled with :data:`theme.TEMPLATE`, so the
same figure serves the page, the tests and the paper-figure export.
"""
