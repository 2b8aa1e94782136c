"""The app's versions of the papers' figures, regenerated as PNG and SVG files.

    python -m mondrian_core.paper --out paper_figures [--only fig5 ...] [--quick]

Each :class:`Recipe` is pure: it calls the same core functions the pages call, with
the settings the pages start from (or the paper's, where the page lets you choose
them), and returns the figure of the same builder the page shows. ``quick=True``
shrinks every computation (fewer points, trees, repetitions) for tests. Rendering to
files (:func:`mondrian_core.figures.export.render_figures`) needs Playwright and
Chromium (requirements-dev.txt); building the figures does not.

Papers: "The Mondrian Kernel" (Balog, Lakshminarayanan, Ghahramani, Roy and Teh 2016,
main text and supplement) and "The Random Forest Kernel and other kernels for big data
from random partitions" (Davies and Ghahramani 2014). Where the paper
used a data set that is not bundled (CPU, bodyfat, mpg), the recipe says which
bundled set stands in.
"""
from __future__ import annotations

import argparse
import sys
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import plotly.graph_objects as go

from mondrian_core import datasets as ds
from mondrian_core._docstrings import docfiller
from mondrian_core.experiments.gp_experiments import (
    PARTITION_KERNELS,
    fitted_partitions,
    kernel_pca_embeddings,
    partition_count_curves,
    posterior_curves,
)
from mondrian_core.experiments.kernel_convergence import (
    feature_counts,
    kernel_error_curves,
    ridge_rmse_curves,
)
from mondrian_core.experiments.kernel_vs_forest import kernel_forest_weights, kernel_vs_forest_path
from mondrian_core.experiments.width_search import figure8_traces
from mondrian_core.figures import forest as forest_figs
from mondrian_core.figures import gp as gp_figs
from mondrian_core.figures import kernel as kernel_figs
from mondrian_core.figures import sweep as sweep_figs
from mondrian_core.figures.process import growth_figure
from mondrian_core.process import sample_mondrian_process
from mondrian_core.sweep import lifetime_for_cells, lifetime_path

MONDRIAN = "Balog et al. 2016, The Mondrian Kernel"
RF_KERNEL = "Davies & Ghahramani 2014, The Random Forest Kernel"

MONDRIAN_CITATION = ('Balog, Lakshminarayanan, Ghahramani, Roy and Teh (2016), "The Mondrian '
                     'Kernel", UAI')
RF_CITATION = ('Davies and Ghahramani (2014), "The Random Forest Kernel and other kernels for '
               'big data from random partitions"')

# The recipes share one signature, ``Recipe.make``'s, documented here once.
_RECIPE_SECTIONS = """\
Parameters
----------
quick : bool
    Shrink the computation (fewer points, trees, repetitions) for tests.
seed : int
    The seed of every random draw.

Returns
-------
plotly.graph_objects.Figure
    The figure the page's builder draws.

References
----------
"""


def _recipe_doc(citation: str, figure: str):
    """Fill a recipe's ``%(recipe)s`` with the shared sections and its paper's figure."""
    reference = textwrap.fill(f"{citation}, {figure}.", width=84)
    return docfiller({"recipe": _RECIPE_SECTIONS + reference})


@dataclass(frozen=True)
class Recipe:
    """One paper figure: which it is, the app's builder, and how to make it.

    Parameters
    ----------
    id : str
        The file stem, e.g. ``"mondrian-kernel-fig5"``.
    paper : str
        The paper (authors, year, title).
    figure : str
        The paper's figure, e.g. ``"Figure 5"``.
    shows : str
        What the figure shows, with any stand-in data set.
    builder : str
        The figure builder, relative to :mod:`mondrian_core.figures`.
    make : callable
        ``make(quick, seed) -> plotly.graph_objects.Figure``.
    width : int, default=900
        The exported width in pixels, unless the figure sets one.
    """

    id: str
    paper: str
    figure: str
    shows: str
    builder: str
    make: Callable[[bool, int], go.Figure]  # (quick, seed) -> figure
    width: int = 900

    def build(self, quick: bool = False, seed: int = 0) -> go.Figure:
        """Make the figure.

        Parameters
        ----------
        quick : bool, default=False
            Shrink the computation for tests.
        seed : int, default=0
            The seed of every random draw.

        Returns
        -------
        plotly.graph_objects.Figure
            The figure, its width set.
        """
        fig = self.make(quick, seed)
        if fig.layout.width is None:
            fig.update_layout(width=self.width)
        return fig


# ---------------------------------------------------------------- Mondrian kernel paper


@_recipe_doc(MONDRIAN_CITATION, "Figure 1")
def mondrian_fig1(quick, seed):
    """Make a Mondrian sample on the unit square with its tree (page: Mondrian process).

    %(recipe)s
    """
    sample = sample_mondrian_process([0.0, 0.0], [1.0, 1.0], 2.5, random_state=seed)
    return growth_figure(sample, sample.lifetime, fill=False, labels=True)


@_recipe_doc(MONDRIAN_CITATION, "Figure 5")
def mondrian_fig5(quick, seed):
    """Make max kernel error against non-zero features; the paper's N = 100, lambda = 10.

    %(recipe)s
    """
    n, m_max, repeats = (30, 10, 1) if quick else (100, 50, 5)
    X = ds.uniform_box(n, random_state=seed).X
    curves = kernel_error_curves(X, 10.0, feature_counts(m_max), repeats, random_state=seed + 4)
    return kernel_figs.kernel_error_figure(curves)


def _split_bundled(name, fractions, seed, *, standardize_target=False):
    data = ds.load_bundled(name, standardize=True)
    data = data.standardize(target=True) if standardize_target else data
    return ds.train_val_test_split(data, fractions, random_state=seed)


@_recipe_doc(MONDRIAN_CITATION, "Figure 6")
def mondrian_fig6(quick, seed):
    """Make ridge test RMSE against non-zero features (diabetes stands in for CPU).

    %(recipe)s
    """
    m_max, repeats = (10, 1) if quick else (50, 5)
    train, test = _split_bundled("diabetes", (0.8, 0.2), seed)
    curves = ridge_rmse_curves(train.X, train.y, test.X, test.y, 0.3, feature_counts(m_max),
                               repeats, ridge=1.0, random_state=seed + 5)
    return kernel_figs.ridge_rmse_figure(curves, dataset_name="diabetes")


def _sweep(train, val, n_trees, seed, terminal=None):
    """The pages' sweep; terminal lifetime: 60 expected cells per tree (their default)."""
    if terminal is None:
        terminal = float(f"{lifetime_for_cells(train.X, 60):.3g}")
    return lifetime_path(train.X, train.y, val.X, val.y, terminal_lifetime=terminal,
                         n_trees=n_trees, noise_variance=0.01, prior_variance=1.0,
                         random_state=seed)


@_recipe_doc(MONDRIAN_CITATION, "Figure 7")
def mondrian_fig7(quick, seed):
    """Make validation error against lifetime on a 2-D Laplace-GP draw (true lifetime 5).

    Swept to a terminal lifetime of 50 (well past the truth, as in the paper) so the
    validation error rises again.

    %(recipe)s
    """
    n, n_trees, terminal = (200, 10, 20.0) if quick else (1000, 50, 50.0)
    data = ds.laplace_gp(n, 2, 5.0, 0.1, random_state=seed)
    train, val, _ = ds.train_val_test_split(data, (0.6, 0.2, 0.2), random_state=seed)
    path = _sweep(train, val, n_trees, seed, terminal)
    return sweep_figs.rmse_vs_lifetime(path, None, data.true_lifetime)


@_recipe_doc(MONDRIAN_CITATION, "Figure 8")
def mondrian_fig8(quick, seed):
    """Make validation error against time: the sweep vs retrained random features.

    On diabetes, with M = 350 non-zero features per point as in the paper.

    %(recipe)s
    """
    n_trees, max_evals = (10, 4) if quick else (350, 12)
    train, val, _ = _split_bundled("diabetes", (0.6, 0.2, 0.2), seed, standardize_target=True)
    path = _sweep(train, val, n_trees, seed)
    traces = figure8_traces(path, train.X, train.y, val.X, val.y, n_trees,
                            noise_variance=0.01, prior_variance=1.0, max_evals=max_evals,
                            random_state=seed)
    return sweep_figs.error_vs_time(traces)


def _kernel_vs_forest(quick, seed):
    n_trees, n_lifetimes, terminal = (10, 5, 2.0) if quick else (50, 16, 2.0)
    train, test = _split_bundled("diabetes", (0.7, 0.3), seed, standardize_target=True)
    lifetimes = np.geomspace(terminal / 300, terminal, n_lifetimes)
    path = kernel_vs_forest_path(train.X, train.y, test.X, test.y, lifetimes, n_trees=n_trees,
                                 noise_variance=0.1, prior_variance=1.0, random_state=seed)
    lifetime = float(f"{path.lifetimes[n_lifetimes // 2]:.4g}")  # the page's default
    return train, test, path, lifetime, dict(n_trees=n_trees, terminal=terminal)


@_recipe_doc(MONDRIAN_CITATION, "Figure 9")
def mondrian_fig9(quick, seed):
    """Make kernel vs forest test RMSE against lifetime on the same Mondrians (diabetes).

    %(recipe)s
    """
    _, _, path, lifetime, _ = _kernel_vs_forest(quick, seed)
    return forest_figs.kernel_vs_forest_rmse(path, lifetime, height=480)


@_recipe_doc(MONDRIAN_CITATION, "Figure 10")
def mondrian_fig10(quick, seed):
    """Make the histograms of the weights each fit learns at Figure 9's marked lifetime.

    %(recipe)s
    """
    train, test, _, lifetime, s = _kernel_vs_forest(quick, seed)
    w = kernel_forest_weights(train.X, train.y, test.X, test.y, lifetime, n_trees=s["n_trees"],
                              noise_variance=0.1, prior_variance=1.0, random_state=seed,
                              terminal_lifetime=s["terminal"])
    return forest_figs.weight_histograms(w)


# ---------------------------------------------------------------- Random Forest kernel paper


@_recipe_doc(RF_CITATION, "Figure 1")
def rf_fig1(quick, seed):
    """Make GP posteriors on the 1-D toy set with jumps, one panel per kernel plus RBF.

    %(recipe)s
    """
    n, m = (60, 20) if quick else (150, 100)
    d = ds.toy_jumps_1d(n=n, random_state=seed)
    grid = np.linspace(-0.05, 1.05, 300)[:, None]
    panels = {}
    for kind in PARTITION_KERNELS:
        P = fitted_partitions(kind, d.X, d.y, n_partitions=m, max_level=6, lifetime=20.0,
                              random_state=seed)
        panels[kind] = posterior_curves(kind, d.X, d.y, grid, noise_variance=0.1,
                                        random_state=seed, partitions=P)
    panels["RBF"] = posterior_curves("RBF", d.X, d.y, grid, random_state=seed)
    return gp_figs.posterior_panels_figure(panels, d.X, d.y, grid,
                                           truth=ds.toy_jumps_function(grid.ravel()))


@_recipe_doc(RF_CITATION, "Figure 2")
def rf_fig2(quick, seed):
    """Make PCA vs Fast Cluster and Random Forest kernel PCA (diabetes for bodyfat).

    %(recipe)s
    """
    d = ds.load_bundled("diabetes", standardize=True)
    emb = kernel_pca_embeddings(d.X, d.y, n_partitions=20 if quick else 100, random_state=seed)
    return gp_figs.kernel_pca_figure(emb, d.y, colour_label=d.target_name or "y")


@_recipe_doc(RF_CITATION, "Figure 5")
def rf_fig5(quick, seed):
    """Make test log-likelihood and MSE against m, as on the Partition-kernel GPs page.

    Diabetes stands in for mpg.

    %(recipe)s
    """
    counts = [5, 10] if quick else [10, 20, 50, 100, 200, 400]
    train, test = _split_bundled("diabetes", (0.8, 0.2), seed)
    curves = partition_count_curves(train.X, train.y, test.X, test.y, counts,
                                    random_state=seed)
    return gp_figs.partition_count_figure(curves, dataset_name="diabetes")


RECIPES: list[Recipe] = [
    Recipe("mondrian-kernel-fig1", MONDRIAN, "Figure 1",
           "a Mondrian sample on the unit square (lifetime 2.5), cut times on the cuts, "
           "beside its tree with the competing clocks' rates", "process.growth_figure",
           mondrian_fig1, width=1100),
    Recipe("mondrian-kernel-fig5", MONDRIAN, "Figure 5",
           "maximum kernel error against non-zero features (N = 100, lambda = 10, M <= 50)",
           "kernel.kernel_error_figure", mondrian_fig5),
    Recipe("mondrian-kernel-fig6", MONDRIAN, "Figure 6",
           "ridge test RMSE against non-zero features; diabetes instead of CPU",
           "kernel.ridge_rmse_figure", mondrian_fig6),
    Recipe("mondrian-kernel-fig7", MONDRIAN, "Figure 7",
           "train/validation RMSE against lifetime on a 2-D Laplace-GP draw (true lifetime "
           "5, swept to 50), M = 50", "sweep.rmse_vs_lifetime", mondrian_fig7),
    Recipe("mondrian-kernel-fig8", MONDRIAN, "Figure 8",
           "best validation RMSE against time: sweep vs retrained Fourier features and "
           "binning, M = 350; diabetes instead of CPU", "sweep.error_vs_time", mondrian_fig8),
    Recipe("mondrian-kernel-fig9", MONDRIAN, "Figure 9",
           "kernel vs forest RMSE against lifetime on the same 50 Mondrians; diabetes",
           "forest.kernel_vs_forest_rmse", mondrian_fig9),
    Recipe("mondrian-kernel-fig10", MONDRIAN, "Figure 10",
           "weights of the joint (kernel) and per-tree (forest) fits at Figure 9's marked "
           "lifetime; exact ridge on diabetes, where the kernel's weights come out wider than "
           "the forest's (the paper's SGD fit on CPU data found them more peaked at 0)",
           "forest.weight_histograms", mondrian_fig10),
    Recipe("rf-kernel-fig1", RF_KERNEL, "Figure 1",
           "GP posteriors (Random Forest, Fast Cluster, Mondrian kernels; RBF) on 1-D toy "
           "data with jumps", "gp.posterior_panels_figure", rf_fig1, width=1000),
    Recipe("rf-kernel-fig2", RF_KERNEL, "Figure 2",
           "PCA vs Fast Cluster and Random Forest kernel PCA; diabetes instead of bodyfat",
           "gp.kernel_pca_figure", rf_fig2, width=1200),
    Recipe("rf-kernel-fig5", RF_KERNEL, "Figure 5",
           "test log-likelihood and MSE against the number of partitions m; diabetes "
           "instead of mpg", "gp.partition_count_figure", rf_fig5, width=1000),
]


def select(only=None) -> list[Recipe]:
    """Return the recipes named in ``only``.

    Parameters
    ----------
    only : list of str, optional
        Full ids, or endings such as ``fig5`` or ``rf-kernel-fig5``; all recipes
        when empty.

    Returns
    -------
    list of Recipe
        The chosen recipes, in the order of :data:`RECIPES`.

    Raises
    ------
    SystemExit
        If a name matches no recipe (the command's error message).
    """
    if not only:
        return list(RECIPES)

    def named(r, o):
        return r.id == o or r.id.endswith("-" + o)

    chosen = [r for r in RECIPES if any(named(r, o) for o in only)]
    unknown = [o for o in only if not any(named(r, o) for r in RECIPES)]
    if unknown:
        raise SystemExit(f"unknown figure(s) {unknown}; choose among {[r.id for r in RECIPES]}")
    return chosen


class ProgressBar:
    """A one-line progress bar on a terminal stream: ``[#####-----] 3/10 name (12 s)``.

    Parameters
    ----------
    total : int
        The number of steps.
    stream : file-like, optional
        Where to write; default ``sys.stderr``.
    width : int, default=30
        Characters of the bar.
    """

    def __init__(self, total: int, stream=None, width: int = 30):
        self.total, self.width = total, width
        self.stream = sys.stderr if stream is None else stream
        self.start = time.perf_counter()

    def show(self, done: int, text: str) -> None:
        """Redraw the bar.

        Parameters
        ----------
        done : int
            Steps done; the line ends when it reaches ``total``.
        text : str
            What is happening.
        """
        filled = int(round(self.width * done / max(self.total, 1)))
        line = (f"[{'#' * filled}{'-' * (self.width - filled)}] {done}/{self.total} {text} "
                f"({time.perf_counter() - self.start:.0f} s)")
        end = "\n" if done == self.total else ""
        self.stream.write("\r" + line.ljust(100) + end)
        self.stream.flush()


def write_index(recipes, out: Path, quick: bool, seed: int) -> Path:
    """Write ``index.md``: which paper figure each file is, and its builder.

    Parameters
    ----------
    recipes : list of Recipe
        The figures made.
    out : pathlib.Path
        The output folder.
    quick : bool
        Whether the quick settings were used.
    seed : int
        The seed used.

    Returns
    -------
    pathlib.Path
        The index file.
    """
    rows = ["| file | paper | figure | what it shows | builder |", "|---|---|---|---|---|"]
    rows += [f"| {r.id}.png / .svg | {r.paper} | {r.figure} | {r.shows} | "
             f"mondrian_core.figures.{r.builder} |" for r in recipes]
    text = (f"# The app's versions of the papers' figures\n\nseed {seed}"
            f"{', quick settings' if quick else ''}; made by `python -m "
            "mondrian_core.paper`.\n\n" + "\n".join(rows) + "\n")
    path = out / "index.md"
    path.write_text(text)
    return path


def main(argv=None) -> int:
    """Run ``python -m mondrian_core.paper``: render the chosen figures to files.

    Parameters
    ----------
    argv : list of str, optional
        The command-line arguments; default ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status, 0 on success.
    """
    parser = argparse.ArgumentParser(
        prog="python -m mondrian_core.paper",
        description="Regenerate the app's versions of the papers' figures as PNG and SVG.")
    parser.add_argument("--out", default="paper_figures", help="folder (default: %(default)s)")
    parser.add_argument("--only", nargs="+", metavar="FIG",
                        help="figures to make, e.g. fig5 or rf-kernel-fig5 (default: all)")
    parser.add_argument("--quick", action="store_true",
                        help="small settings (seconds, not minutes), for tests")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--formats", nargs="+", default=["png", "svg"], choices=["png", "svg"])
    parser.add_argument("--scale", type=float, default=2.0, help="PNG pixels per CSS pixel")
    parser.add_argument("--list", action="store_true", help="list the figures and exit")
    args = parser.parse_args(argv)
    recipes = select(args.only)
    if args.list:
        for r in recipes:
            print(f"{r.id:24s} {r.figure:10s} {r.shows}")
        return 0
    from mondrian_core.figures.export import render_figures

    out = Path(args.out)
    bar = ProgressBar(len(recipes))

    def figures():
        for i, r in enumerate(recipes):
            bar.show(i, f"computing {r.id}")
            yield r.id, r.build(args.quick, args.seed)

    paths = render_figures(figures(), out, formats=args.formats, scale=args.scale,
                           progress=lambda i, stem: bar.show(i, f"wrote {stem}"))
    write_index(recipes, out, args.quick, args.seed)
    print(f"{len(paths)} files in {out}/ ({time.perf_counter() - bar.start:.0f} s)")
    return 0


