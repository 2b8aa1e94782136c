"""Figures for the online page's stream: the online Mondrian kernel beside the online forest.

Pure functions of core results returning plotly figures styled with the theme.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from mondrian_core.figures._parts import (
    axis_key,
    band_dict,
    figure_builder,
    subplots_layout,
    validated_once,
)
from mondrian_core.figures.theme import (
    BLACK,
    BLUE,
    GREY,
    RED,
    YELLOW,
    legend_below_layout,
    styled_layout,
)

_BANDS = {BLUE: "rgba(19,86,162,0.18)", RED: "rgba(212,9,32,0.15)"}


@validated_once
@figure_builder
def stream_fits_figure(stream, step, *, height=470) -> go.Figure:
    """Draw the online kernel's and the online forest's fits after batch ``step``, side by side.

    Each panel: the points seen so far (the latest batch as diamonds), the true
    function (dashed, if known), the posterior mean and a band of two standard
    deviations of the function value.

    Parameters
    ----------
    stream : StreamFits
        From :func:`~mondrian_core.experiments.online.online_kernel_forest`.
    step : int
        The batch (0-based) after which the fits are drawn.
    %(builder)s

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, Supplement C.
    """
    seen = int(stream.n_seen[step])
    first = int(stream.n_seen[step - 1]) if step > 0 else 0
    x, y, g = stream.X[:, 0], stream.y, stream.grid
    # short panel titles: two of them share the width of a laptop's main column
    panels = ((f"Kernel: ridge on {stream.n_features[step]} cells", BLUE,
               stream.kernel_mean[step], stream.kernel_std[step]),
              ("Forest: trees alone", RED,
               stream.forest_mean[step], stream.forest_std[step]))
    layout, cells = subplots_layout(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.04,
                                    subplot_titles=[p[0] for p in panels])
    values = np.concatenate([y, *(p[2] for p in panels)])
    lo, hi = float(values.min()), float(values.max())
    pad = 0.15 * (hi - lo)
    # dicts, validated once in one go.Figure (graph objects validate at every step)
    traces = []
    for col, (name, colour, mean, std) in enumerate(panels, start=1):
        legend = col == 1
        axes = cells[0][col - 1]
        traces.append(band_dict(g, mean - 2 * std, mean + 2 * std, _BANDS[colour],
                                name="mean ± 2 std", legendgroup="band", showlegend=legend,
                                marker=dict(color=GREY), **axes))
        if stream.f is not None:
            traces.append(dict(type="scatter", x=g, y=stream.f, mode="lines",
                               name="true function",
                               line=dict(color=BLACK, width=1.5, dash="dash"),
                               legendgroup="f", showlegend=legend, **axes))
        traces.append(dict(type="scatter", x=x[:first], y=y[:first], mode="markers",
                           name="seen earlier", marker=dict(size=6, color=GREY, opacity=0.7),
                           legendgroup="seen", showlegend=legend, **axes))
        traces.append(dict(type="scatter", x=x[first:seen], y=y[first:seen], mode="markers",
                           name="latest batch",
                           marker=dict(size=10, color=YELLOW, symbol="diamond",
                                       line=dict(color=BLACK, width=1.2)),
                           legendgroup="new", showlegend=legend, **axes))
        traces.append(dict(type="scatter", x=g, y=mean, mode="lines",
                           name=name.split(":")[0] + " mean",
                           line=dict(color=colour, width=3), **axes))
        # no axis title: in projector mode it ran into the legend below
        layout[axis_key(axes["xaxis"])]["range"] = [g[0], g[-1]]
    layout[axis_key(cells[0][0]["yaxis"])].update(title=dict(text="y"),
                                                  range=[lo - pad, hi + pad])
    for a in layout.get("annotations", ()):  # subplot titles clear of the frame
        a["yshift"] = 6
        a.setdefault("font", {})["size"] = 14
    layout["margin"] = dict(t=85)  # the title above the panels' titles
    layout = styled_layout(layout, title=f"The same stream, after {seen} of {len(x)} points",
                           height=height)
    return go.Figure(data=traces,
                     layout=legend_below_layout(layout, gap=45, legend_height=50))
