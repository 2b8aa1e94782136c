"""The app's pages, its home page, and the guard that keeps every page inside them."""
from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass

import streamlit as st

from explorer_ui.thumbnails import thumbnail_path


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
    View("pages/inference.py", "Inference with Mondrian forests", ":material/straighten:",
         "Honest confidence intervals from a Mondrian forest (Cattaneo, Klusowski and "
         "Underwood): a coverage lab, bias against the lifetime, the central limit theorem, "
         "debiasing, and why forests beat single trees."),
    View("pages/amf.py", "Aggregated Mondrian forest", ":material/account_tree:",
         "Online trees with no lifetime, averaged exactly over every pruning: the weighted "
         "depth follows the signal's roughness, no lifetime to tune, and the regret "
         "against the best pruning in hindsight."),
]


def home() -> None:
    st.title("Mondrian Explorer")
    st.markdown(
        "An interactive companion to *The Mondrian Kernel* (Balog, Lakshminarayanan, "
        "Ghahramani, Roy and Teh, 2016), *Mondrian Forests* (Lakshminarayanan, Roy and "
        "Teh), *The Random Forest Kernel* (Davies and Ghahramani, 2014), *Inference with "
        "Mondrian Random Forests* (Cattaneo, Klusowski and Underwood) and *AMF: Aggregated "
        "Mondrian Forests* (Mourtada, Gaïffas and Scornet, 2021). Every view "
        "is computed live from a seed you choose, so the same link shows the same "
        "picture to everyone. Each page has a **guided tour**: click a picture to start "
        "it, then move through it with the arrow keys."
    )
    # A thumbnail's toolbar would offer "Fullscreen" of a picture that is a link: a tab
    # stop with a name that says nothing of where the picture leads. Hidden (so out of
    # the accessibility tree too): each thumbnail is one link, named by its tour.
    st.html("<style>.st-key-home_cards [data-testid='stElementToolbar'] {display: none}</style>")
    with st.container(key="home_cards"):
        # two cards a row (with three, the titles and links were cut off at 1024 px),
        # one row at a time so that the reading order is the pages' order
        for first in range(0, len(VIEWS), 2):
            for column, view in zip(st.columns(2), VIEWS[first:first + 2]):
                with column.container(border=True):
                    _card(view)


def thumbnail_name(view: View) -> str:
    """The accessible name of a view's thumbnail: where the link leads (Streamlit opens
    an image's link in a new tab), then what the picture shows."""
    return (f"Guided tour of {view.title}, in a new tab. The picture: the page's main "
            "chart.")


def _card(view: View) -> None:
    stem = view.path.removeprefix("pages/").removesuffix(".py")
    thumbnail = thumbnail_path(stem)
    if thumbnail.exists():
        # a relative link, so that it also works under a path prefix (deploy/)
        st.image(str(thumbnail), link=f"{stem}?tour=1", width="stretch", output_format="PNG",
                 alt=thumbnail_name(view))
    st.page_link(view.path, label=f"**{view.title}**", icon=view.icon)
    st.markdown(view.blurb)
    # named by its page: a screen reader's list of links shows link names out of context
    st.page_link(view.path, label=f"Start the guided tour of {view.title}",
                 icon=":material/school:", query_params={"tour": "1"})


def app_pages() -> list:
    """The app's pages for ``st.navigation``: home first, then every view."""
    pages = [st.Page(home, title="Home", icon=":material/home:", default=True)]
    return pages + [st.Page(v.path, title=v.title, icon=v.icon) for v in VIEWS]


_run = threading.local()  # each session's script runs in a thread of its own


@contextmanager
def inside_app(title: str | None = None):
    """Marks the page run by app.py's navigation (see :func:`require_app_navigation`);
    ``title`` is the page's, as :func:`page_title` gives it to the page's code."""
    _run.inside_app, _run.title = True, title
    try:
        yield
    finally:
        _run.inside_app, _run.title = False, None


def page_title() -> str | None:
    """The title of the page this session is running (names its exported charts), or
    None outside app.py's navigation (a page file run on its own, as by ``AppTest``)."""
    return getattr(_run, "title", None)


def require_app_navigation() -> None:
    """Run the calling page inside app.py's navigation.

    Streamlit treats a ``pages/`` folder beside the main script as its folder-based
    multipage mode until some script calls ``st.navigation``; so when a page link is the
    first request to a fresh server, the page's file runs on its own, without app.py's
    layout, sidebar and settings. Calling ``st.navigation`` (public API) ends that mode
    for the whole server, and the rerun goes through app.py to the same page. Each
    session checks for itself, so a class arriving at once on a fresh server all end up
    in the app. A run with no browser behind it (``AppTest`` runs a page file as the
    main script, with no HTTP headers) has no folder mode to leave.
    """
    if not getattr(_run, "inside_app", False) and st.context.headers:
        st.navigation(app_pages(), position="hidden")
        st.rerun()
