"""Mondrian Explorer: entry point (navigation and the home page)."""
from __future__ import annotations

import os

# One BLAS thread per computation, set before NumPy/SciPy load (the pages import them
# after this line). The server runs one script thread per user; with OpenBLAS's own
# threads on top, small factorisations fight for the cores: on a busy 2-core machine a
# 300 x 300 triangular solve took 26 ms with 2 BLAS threads and 1.6 ms with one, and the
# default lifetime sweep 8.3 s against 0.5 s (bench/bench_browser.py, README).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from dataclasses import dataclass  # noqa: E402

import streamlit as st  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402  (comes with scikit-learn)

# ... and for BLAS libraries already loaded: a page link opened first on a fresh server
# runs that page (and imports NumPy) before this file.
threadpool_limits(1)


@dataclass(frozen=True)
class View:
    path: str
    title: str
    icon: str
    blurb: str


# One entry per page, in reading order. Each page's file says what it shows.
VIEWS: list[View] = [
    View("pages/mondrian_process.py", "Mondrian process", ":material/grid_view:",
         "Watch a Mondrian partition of a box grow in time beside its tree of competing "
         "clocks; check the clocks, projectivity and the conditional Mondrian live."),
    View("pages/kernel_convergence.py", "Kernel convergence", ":material/blur_on:",
         "The Mondrian kernel against the Laplace kernel: kernel matrices, a slice that "
         "turns from steps into an exponential as trees are added, the Mondrian-Laplace "
         "link, and the paper's Figures 5 and 6 against random binning and Fourier "
         "features."),
    View("pages/lifetime_sweep.py", "Lifetime sweep", ":material/timeline:",
         "One set of Mondrians serves every kernel width: slide the lifetime and see the "
         "exact ridge fit, train/validation error and features at every cut, and race "
         "the sweep against retrained random features (Figures 4, 7, 8)."),
    View("pages/lifetime_posterior.py", "Lifetime posterior", ":material/bar_chart:",
         "A prior over the lifetime times the marginal likelihood at every cut gives the "
         "exact posterior over the kernel width: mean, MAP, credible interval and the "
         "mixture predictive (Supplement B)."),
    View("pages/partition_gp.py", "Partition-kernel GPs", ":material/scatter_plot:",
         "GP regression with the Random Forest and Fast Cluster kernels of Davies and "
         "Ghahramani (2014): piecewise-constant posteriors, kernel matrices, "
         "preconditioned conjugate gradients, kernel PCA and a comparison with RBF and "
         "linear kernels on real data."),
    View("pages/kernel_vs_forest.py", "Kernel vs forest", ":material/compare_arrows:",
         "The same Mondrian trees fitted jointly (Mondrian kernel) or tree by tree "
         "(Mondrian forest): test error against lifetime and the weights each learns "
         "(the paper's Figures 9 and 10)."),
    View("pages/online_forest.py", "Online Mondrian forest", ":material/stream:",
         "Points arrive in mini-batches: watch a tree grow by the conditional Mondrian, "
         "compare with retrained random forests, and see uncertainty rise away from the "
         "data."),
]


def home() -> None:
    st.title("Mondrian Explorer")
    st.markdown(
        "An interactive companion to *The Mondrian Kernel* (Balog, Lakshminarayanan, "
        "Ghahramani, Roy and Teh, 2016), *Mondrian Forests* (Lakshminarayanan, Roy and "
        "Teh) and *The Random Forest Kernel* (Davies and Ghahramani, 2014). Every view "
        "is computed live from a seed you choose, so the same link shows the same "
        "picture to everyone."
    )
    for view in VIEWS:
        with st.container(border=True):
            st.page_link(view.path, label=f"**{view.title}**", icon=view.icon)
            st.markdown(view.blurb)


def main() -> None:
    st.set_page_config(page_title="Mondrian Explorer", page_icon="\u25A6", layout="wide")
    pages = [st.Page(home, title="Home", icon=":material/home:", default=True)]
    pages += [st.Page(v.path, title=v.title, icon=v.icon) for v in VIEWS]
    nav = st.navigation(pages)
    # imported after st.navigation, which ends Streamlit's folder-based pages mode
    from pages.common import chart_format_control, share_link

    share_link()
    chart_format_control()
    nav.run()


main()
