"""Figure builders: pure functions from core results to plotly figures.

Nothing here imports Streamlit; every builder returns a
:class:`plotly.graph_objects.Figure` styled with :data:`theme.TEMPLATE`, so the
same figure serves the page, the tests and the paper-figure export. A builder whose
``height`` is the figure's takes it last and is decorated with
:func:`~mondrian_core.figures._parts.figure_builder`, which fills the ``%(builder)s`` line
of its docstring (its height and return value).
"""
