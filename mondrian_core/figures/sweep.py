"""Figures of the lifetime sweep and the lifetime posterior (Balog et al. 2016,
Figures 4, 7, 8 and Supplement B). Pure functions returning styled plotly figures."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from mondrian_core.figures._parts import (
    band,
    figure_builder,
    log_x_marker,
    log_x_marker_dicts,
    polyline,
)
from mondrian_core.figures.theme import (
    BLACK,
    BLUE,
    GREY,
    LIGHT_GREY,
    RED,
    SERIES,
    YELLOW,
    styled,
    styled_layout,
)

__all__ = ["rmse_vs_lifetime", "n_features_vs_lifetime", "fitted_function_1d",
           "prediction_surface_2d", "tree_cut_segments", "log_marginal_likelihood_vs_lifetime",
           "lifetime_density", "error_vs_time", "split_sizes"]


def _log_range(path):
    t = _positive_times(path)
    return [float(np.log10(t[0])), float(np.log10(t[-1]))]


def _positive_times(path):
    """Lifetimes shown on a log axis: tau_0 = 0 is drawn at a tenth of tau_1."""
    t = np.asarray(path.lifetimes, dtype=float).copy()
    if t.size > 1:
        t[0] = t[1] / 10
    else:
        t[0] = path.terminal_lifetime / 10
    return np.append(t, path.terminal_lifetime)


def _steps(path, values):
    return np.append(values, values[-1])


@figure_builder
def rmse_vs_lifetime(path, lifetime=None, true_lifetime=None, height=380):
    """Plot train and validation RMSE against lifetime (log axis), constant between cuts.

    The slider's lifetime and the best validation lifetime are marked (the paper's
    Figure 7 recovers the true lifetime of a Laplace-GP draw this way).

    Parameters
    ----------
    path : LifetimePath
        The sweep, from :func:`~mondrian_core.sweep.lifetime_path`.
    lifetime : float, optional
        The slider's lifetime, marked by a dashed line.
    true_lifetime : float, optional
        The lifetime the data were drawn with (synthetic sets), marked by a dotted line.
    %(builder)s

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, Figure 7.
    """
    t = _positive_times(path)
    fig = go.Figure()
    fig.add_scatter(x=t, y=_steps(path, path.train_rmse), mode="lines", line_shape="hv",
                    name="train RMSE", line=dict(color=BLUE, width=2))
    if np.isfinite(path.val_rmse).any():
        fig.add_scatter(x=t, y=_steps(path, path.val_rmse), mode="lines", line_shape="hv",
                        name="validation RMSE", line=dict(color=RED, width=2))
        best = path.best_index
        fig.add_scatter(x=[max(path.lifetimes[best], t[0])], y=[path.val_rmse[best]],
                        mode="markers", name=f"best validation: lifetime {path.lifetimes[best]:.3g}",
                        marker=dict(color=RED, size=12, symbol="star", line=dict(color=BLACK, width=1)))
    # the slider's label sits above the plot and the true lifetime's inside its top edge,
    # so the two never overprint, however close the lines (and at projector font sizes);
    # the slider's label turns inwards near the right edge
    lo, hi = _log_range(path)
    inward = lifetime is not None and np.log10(max(lifetime, t[0])) > lo + 0.85 * (hi - lo)
    if true_lifetime is not None:
        log_x_marker(fig, true_lifetime, f" true {true_lifetime:g}", color=GREY, dash="dot",
                     y=0.99, yanchor="top", xanchor="left")
    if lifetime is not None:
        log_x_marker(fig, max(lifetime, t[0]), f"slider {lifetime:.3g}",
                     xanchor="right" if inward else "center")
    fig.update_xaxes(type="log", range=_log_range(path),
                     title="lifetime \u03bb (inverse kernel width, log scale)")
    fig.update_yaxes(title="RMSE (target units)")
    fig.update_layout(legend=dict(x=0.01, y=0.02, xanchor="left", yanchor="bottom"))
    fig.update_layout(margin=dict(t=80))
    return styled(fig, title="Error along the lifetime sweep", height=height)


@figure_builder
def n_features_vs_lifetime(path, lifetime=None, height=300):
    """Plot the number of Mondrian features (non-empty cells of all trees) against lifetime.

    Parameters
    ----------
    path : LifetimePath
        The sweep, from :func:`~mondrian_core.sweep.lifetime_path`.
    lifetime : float, optional
        The slider's lifetime, marked with its number of features.
    %(builder)s
    """
    t = _positive_times(path)
    fig = go.Figure()
    fig.add_scatter(x=t, y=_steps(path, path.n_features), mode="lines", line_shape="hv",
                    name="features", line=dict(color=BLACK, width=2), showlegend=False)
    if lifetime is not None:
        log_x_marker(fig, max(lifetime, t[0]), f"{path.n_features[path.index(lifetime)]} features")
    fig.update_xaxes(type="log", range=_log_range(path), title="lifetime \u03bb (log scale)")
    fig.update_yaxes(title="number of features C")
    return styled(fig, title="Features (+1 per cut)", height=height)


@figure_builder
def fitted_function_1d(grid, mean, X_train, y_train, X_val=None, y_val=None, std=None,
                       f_true=None, title="Fitted function", band_label="\u00b12 std",
                       height=400):
    """Plot 1-D data, the fitted (or predictive) mean and an optional band.

    Parameters
    ----------
    grid : array-like of shape (G,) or (G, 1)
        Where the mean is evaluated.
    mean : array-like of shape (G,)
        The fitted or predictive mean on the grid.
    X_train, y_train : array-like of shape (N,) or (N, 1), and (N,)
        Training points, drawn grey.
    X_val, y_val : array-like, optional
        Validation points, drawn as red crosses.
    std : array-like of shape (G,), optional
        A standard deviation: the band is ``mean +- 2 std``.
    f_true : array-like of shape (G,), optional
        The noise-free function on the grid (synthetic sets), dotted.
    title : str, default="Fitted function"
        The figure's title.
    band_label : str, default="±2 std"
        The band's legend entry.
    %(builder)s
    """
    grid = np.ravel(grid)
    fig = go.Figure()
    if std is not None:
        fig.add_trace(band(grid, mean - 2 * std, mean + 2 * std, "rgba(19,86,162,0.18)",
                           name=band_label))
    fig.add_scatter(x=np.ravel(X_train), y=y_train, mode="markers", name="train",
                    marker=dict(color=GREY, size=5, opacity=0.7))
    if X_val is not None and y_val is not None:
        fig.add_scatter(x=np.ravel(X_val), y=y_val, mode="markers", name="validation",
                        marker=dict(color=RED, size=5, symbol="x"))
    if f_true is not None:
        fig.add_scatter(x=grid, y=f_true, mode="lines", name="true function",
                        line=dict(color=BLACK, dash="dot", width=1.5))
    fig.add_scatter(x=grid, y=mean, mode="lines", name="prediction", line=dict(color=BLUE, width=2.5))
    fig.update_xaxes(title="x")
    fig.update_yaxes(title="y")
    return styled(fig, title=title, height=height)


def tree_cut_segments(trees, tree_index, lifetime, lower, upper):
    """Return the line segments of one 2-D tree's cuts made by ``lifetime``.

    Each cut spans its node's region (the root's region is the box
    ``[lower, upper]``; a child's is its parent's, cut at the split location).

    Parameters
    ----------
    trees : MondrianTrees
        Trees over 2-D points.
    tree_index : int
        The tree.
    lifetime : float
        Cuts made after this time are left out.
    lower, upper : sequence of float, length 2
        The drawing box (the root's region).

    Returns
    -------
    ndarray of shape (n_cuts, 4)
        ``x0, y0, x1, y1`` of each cut.
    """
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    root = int(trees.roots[tree_index])
    regions = {root: (lower.copy(), upper.copy())}
    stack, segs = [root], []
    while stack:
        j = stack.pop()
        if trees.left[j] < 0 or trees.split_time[j] > lifetime:
            continue
        lo, up = regions[j]
        d, loc = int(trees.split_dim[j]), float(trees.split_loc[j])
        if d == 0:
            segs.append((loc, lo[1], loc, up[1]))
        else:
            segs.append((lo[0], loc, up[0], loc))
        up_l, lo_r = up.copy(), lo.copy()
        up_l[d], lo_r[d] = loc, loc
        regions[int(trees.left[j])] = (lo, up_l)
        regions[int(trees.right[j])] = (lo_r, up)
        stack += [int(trees.left[j]), int(trees.right[j])]
    return np.array(segs).reshape(-1, 4)


@figure_builder
def prediction_surface_2d(gx, gy, Z, X_train, segments=None, title="Prediction surface",
                          colorbar_title="prediction", height=520):
    """Draw a heat map of predictions on a grid, the training points and one tree's cuts.

    Parameters
    ----------
    gx, gy : ndarray of shape (Gx,) and (Gy,)
        The grid's coordinates.
    Z : ndarray of shape (Gy, Gx)
        The predictions on the grid.
    X_train : ndarray of shape (N, 2)
        Training points.
    segments : ndarray of shape (n_cuts, 4), optional
        One tree's cuts (:func:`tree_cut_segments`).
    title : str, default="Prediction surface"
        The figure's title.
    colorbar_title : str, default="prediction"
        The colour bar's title.
    %(builder)s
    """
    fig = go.Figure()
    fig.add_heatmap(x=gx, y=gy, z=Z, colorscale=[[0, BLUE], [0.5, "#FFFFFF"], [1, RED]],
                    colorbar=dict(title=colorbar_title), zsmooth=False)
    fig.add_scatter(x=X_train[:, 0], y=X_train[:, 1], mode="markers", name="train",
                    marker=dict(color=BLACK, size=3, opacity=0.5), showlegend=False)
    if segments is not None and len(segments):
        xs, ys = polyline(*np.asarray(segments, dtype=float).T)
        fig.add_scatter(x=xs, y=ys, mode="lines", line=dict(color=BLACK, width=2.5),
                        name="cuts of tree 1", showlegend=False)
    fig.update_xaxes(title="x1", range=[gx[0], gx[-1]], constrain="domain")
    # both axes keep the data's box: the square shrinks to fit instead of one axis
    # running past the data (a narrow column would otherwise stretch y far beyond it)
    fig.update_yaxes(title="x2", range=[gy[0], gy[-1]], scaleanchor="x", scaleratio=1,
                     constrain="domain")
    return styled(fig, title=title, height=height)


@figure_builder
def log_marginal_likelihood_vs_lifetime(path, lifetime=None, true_lifetime=None, height=360):
    """Plot the log marginal likelihood ``log p(y | X, lambda)`` along the sweep.

    Constant between cuts; the maximum is starred.

    Parameters
    ----------
    path : LifetimePath
        The sweep, from :func:`~mondrian_core.sweep.lifetime_path`.
    lifetime : float, optional
        The slider's lifetime (not drawn here; accepted for a uniform call).
    true_lifetime : float, optional
        The lifetime the data were drawn with (synthetic sets), marked by a dotted line.
    %(builder)s

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    Supplement B.
    """
    t = _positive_times(path)
    best = int(np.argmax(path.log_marginal_likelihood))
    # dicts, validated once in one go.Figure (graph objects validate at every step)
    data = [dict(type="scatter", x=t, y=_steps(path, path.log_marginal_likelihood),
                 mode="lines", line_shape="hv", name="log marginal likelihood",
                 line=dict(color=BLUE, width=2), showlegend=False),
            dict(type="scatter", x=[max(path.lifetimes[best], t[0])],
                 y=[path.log_marginal_likelihood[best]], mode="markers",
                 marker=dict(color=BLUE, size=11, symbol="star"),
                 name=f"maximum at {path.lifetimes[best]:.3g}", showlegend=True)]
    layout = styled_layout(dict(
        xaxis=dict(type="log", range=_log_range(path),
                   title=dict(text="lifetime \u03bb (log scale)")),
        yaxis=dict(title=dict(text="log p(y | X, \u03bb)  (nats)")),
        legend=dict(x=0.99, y=0.02, xanchor="right", yanchor="bottom")),
        title="Log marginal likelihood at every cut", height=height)
    if true_lifetime is not None:
        shape, note = log_x_marker_dicts(true_lifetime, f"true {true_lifetime:g}", color=GREY,
                                         dash="dot")
        layout.update(shapes=[shape], annotations=[note])
    return go.Figure(data=data, layout=layout)


@figure_builder
def lifetime_density(grid, prior_pdf, posterior_pdf, mean=None, map_=None, interval=None,
                     level=0.9, true_lifetime=None, height=420):
    """Plot the prior and posterior density of the lifetime on one log-x plot.

    On a log axis the honest density is per unit ``log(lambda)``: the densities per unit
    ``lambda`` are drawn times ``lambda``, so that equal areas under the curves hold
    equal probability.

    Parameters
    ----------
    grid : ndarray
        Positive lifetimes, increasing.
    prior_pdf, posterior_pdf : ndarray
        The densities per unit ``lambda`` on the grid.
    mean : float, optional
        The posterior mean, marked.
    map_ : float, optional
        The posterior mode, marked.
    interval : tuple of float, optional
        A credible interval, shaded.
    level : float, default=0.9
        The interval's probability (legend text).
    true_lifetime : float, optional
        The lifetime the data were drawn with, marked by a dotted line.
    %(builder)s

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    Supplement B.
    """
    fig = go.Figure()
    if interval is not None:
        fig.add_vrect(x0=interval[0], x1=interval[1], fillcolor=YELLOW, opacity=0.45, line_width=0)
        fig.add_scatter(x=[None], y=[None], mode="markers", name=f"{level:.0%} credible interval",
                        marker=dict(color=YELLOW, symbol="square", size=12))
    grid = np.asarray(grid, dtype=float)
    fig.add_scatter(x=grid, y=np.asarray(prior_pdf) * grid, mode="lines", name="prior",
                    line=dict(color=GREY, width=2, dash="dash"))
    fig.add_scatter(x=grid, y=np.asarray(posterior_pdf) * grid, mode="lines", name="posterior",
                    line_shape="linear",
                    line=dict(color=BLUE, width=2.5))
    if mean is not None:
        log_x_marker(fig, mean, f"mean {mean:.3g}", color=BLUE, xanchor="right")
    if map_ is not None:
        log_x_marker(fig, map_, f"MAP {map_:.3g}", color=RED, dash="dashdot", xanchor="left",
                     y=0.97, yanchor="top")
    if true_lifetime is not None:
        log_x_marker(fig, true_lifetime, f"true {true_lifetime:g}", color=BLACK, dash="dot",
                     y=0.0, yanchor="bottom", xanchor="left")
    fig.update_xaxes(type="log", title="lifetime \u03bb (log scale)",
                     range=[float(np.log10(grid[0])), float(np.log10(grid[-1]))])
    fig.update_yaxes(title="density per unit log \u03bb", rangemode="tozero")
    fig.update_layout(legend=dict(x=0.01, y=0.98, xanchor="left", yanchor="top"),
                      margin=dict(t=80))
    return styled(fig, title="Prior and posterior over the lifetime", height=height)


@figure_builder
def error_vs_time(traces, height=420):
    """Draw the paper's Figure 8: best validation RMSE so far against computation time.

    Parameters
    ----------
    traces : sequence of SearchTrace
        One per method (:func:`~mondrian_core.experiments.width_search.figure8_traces`).
    %(builder)s

    References
    ----------
    Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian Kernel",
    UAI, sec. 8.2 and Figure 8.
    """
    fig = go.Figure()
    for i, tr in enumerate(traces):
        color = SERIES[i % len(SERIES)]
        secs = np.maximum(tr.seconds, 1e-4)
        fig.add_scatter(x=secs, y=tr.best_so_far, mode="lines", line_shape="hv", name=tr.method,
                        line=dict(color=color, width=2.5))
        if tr.lifetimes.size < 50:
            fig.add_scatter(x=secs, y=tr.val_rmse, mode="markers", showlegend=False,
                            marker=dict(color=color, size=7, opacity=0.6),
                            text=[f"\u03bb = {v:.3g}" for v in tr.lifetimes],
                            hovertemplate="%{text}<br>%{x:.3f} s<br>RMSE %{y:.4g}<extra></extra>")
    fig.update_xaxes(type="log", title="computation time (s, log scale)")
    fig.update_yaxes(title="validation RMSE (best so far)")
    fig.update_layout(legend=dict(x=0.99, y=0.98, xanchor="right", yanchor="top"))
    return styled(fig, title="Validation error against computation time", height=height)


@figure_builder
def split_sizes(sizes, height=170):
    """Draw a horizontal bar of the train / validation / test sizes.

    Parameters
    ----------
    sizes : mapping of str to int
        Part name ("train", "validation", "test") -> number of points.
    %(builder)s
    """
    fig = go.Figure()
    colors = {"train": BLUE, "validation": RED, "test": LIGHT_GREY}
    for name, n in sizes.items():
        fig.add_bar(y=["split"], x=[n], orientation="h", name=f"{name}: {n}",
                    marker_color=colors.get(name, GREY), text=[f"{name} {n}"], textposition="inside")
    fig.update_layout(barmode="stack", margin=dict(l=10, r=10, t=40, b=10), showlegend=False)
    fig.update_xaxes(title=None, showticklabels=False, showline=False)
    fig.update_yaxes(showticklabels=False, showline=False)
    return styled(fig, title="Data split (points)", height=height)
