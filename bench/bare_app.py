"""The load benchmark's baseline: a bare Streamlit page with one small chart.

``python -m bench.load_server`` serves it beside the app, with the same settings, so that
the app's cost per visit is read as a multiple of Streamlit's own.
"""
import plotly.graph_objects as go
import streamlit as st

st.plotly_chart(go.Figure(go.Scatter(x=[0, 1, 2, 3], y=[1, 3, 2, 4])), theme=None)
