"""Every page's guided tour and predict-then-reveal question, one test for all pages (those
in ``explorer_ui.navigation.VIEWS``, so a new page is covered as soon as it is listed).

Tours: a step's link draws a fixed picture and steps differ, "Next" walks through every
step without an error, and moving a widget leaves the tour while keeping the new value.
Questions: revealing the answer (after the right guess, where the page's data names it)
shows it and draws the question's chart.

At its defaults: a page with a :class:`Shows` entry runs clean and shows its charts,
texts and sidebar widgets.

What a page must show is data (:data:`CASES`, :data:`QUESTIONS`); a page without an
entry gets the generic checks, with the seed as the widget that leaves the tour.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from explorer_ui import defaults_amf as amf_defaults
from explorer_ui import defaults_mondrian_process as process_defaults
from explorer_ui import defaults_online_forest as online_defaults
from tests.support import PAGES, assert_clean, chart_specs, run_page, small


@dataclass(frozen=True)
class Shows:
    """What a page shows when opened at its defaults (or at its small link values)."""

    #: charts on the page before any question is answered
    n_charts: int
    #: run at the page's small link values (:func:`tests.support.small`), not its defaults
    small: bool = True
    #: the page's title, if checked
    title: str | None = None
    #: chart index -> text its spec contains (JSON text)
    chart_text: dict = field(default_factory=dict)
    #: texts one markdown element must contain together, for each group
    markdown: tuple = ()
    #: widget kind -> keys of such widgets the sidebar holds (the projector layout)
    sidebar: dict = field(default_factory=dict)


@dataclass(frozen=True)
class TourCase:
    """What a page's tour must show, beyond the generic checks."""

    #: link values added to every run (small sizes where the defaults are slow)
    query: dict = field(default_factory=dict)
    #: step -> link values the step sets (the URL shows the widgets' values)
    sets: dict = field(default_factory=dict)
    #: step -> text the step's first chart contains (its spec, as JSON text)
    chart_text: dict = field(default_factory=dict)
    #: charts every step shows, if fixed
    n_charts: int | None = None
    #: (widget kind, key, value): the widget moved after "Next" to leave the tour
    leave: tuple = ("number_input", "seed", 12)
    #: needs the tiny Figure 8 at scale (the Lifetime sweep page)
    tiny_figure8: bool = False
    #: what the page shows at its defaults, if checked beyond running clean
    shows: Shows | None = None


CASES = {
    "pages/mondrian_process.py": TourCase(
        sets={1: {"time": "0.5"}, 2: {"time": str(process_defaults.LIFETIME)}},
        n_charts=1, leave=("slider", "lifetime", 4.0)),
    "pages/kernel_convergence.py": TourCase(
        sets={2: {"m": "50"}, 3: {"m": "500"}, 4: {"m": "500"}},
        chart_text={1: 'Mondrian, M = 1"'}, leave=("slider", "lam", 5.0),
        # heat maps (main), slice, link, uniform convergence and Figure 6 (Figure 5 waits
        # for the reveal); the expander's numbers follow the page's points: 7,140 pairs of
        # N = 120
        shows=Shows(n_charts=5, small=False,
                    chart_text={0: "Mondrian, M = 50", 3: "Uniform convergence: 16 "},
                    markdown=(("7,140 pairs", "[-2, 2]"),),
                    sidebar={"slider": ("n", "lam", "m", "m5", "r5", "lam6", "m6", "r6")})),
    "pages/lifetime_sweep.py": TourCase(
        query=small("pages/lifetime_sweep.py"), sets={2: {"lifetime": "0.1"}},
        leave=("number_input", "noise_var", 0.05), tiny_figure8=True),
    "pages/lifetime_posterior.py": TourCase(
        sets={2: {"cells": "100"}}, leave=("slider", "trees", 20)),
    "pages/partition_gp.py": TourCase(
        sets={2: {"h": "1"}}, leave=("slider", "m", 50),
        # posteriors, kernels, kernel PCA (the CG chart waits for the reveal)
        shows=Shows(n_charts=3, title="Partition-kernel GPs",
                    markdown=(("Distance of each posterior mean",),),
                    sidebar={"slider": ("n", "m", "h", "noise", "lam", "mr"),
                             "selectbox": ("real_src",), "number_input": ("seed",)})),
    "pages/kernel_vs_forest.py": TourCase(
        sets={2: {"noise": "0.1"}}, leave=("slider", "trees", 10),
        # the weights wait for the reveal
        shows=Shows(n_charts=1, markdown=(("kernel objective",),),
                    sidebar={"number_input": ("seed",), "slider": ("trees",),
                             "select_slider": ("lam",)})),
    "pages/online_forest.py": TourCase(
        sets={1: {"step": "1"}, 2: {"step": str(online_defaults.TOUR_STEP)}}, n_charts=4,
        leave=("slider", "trees", 4),
        # tree, kernel-vs-forest stream, scores, operations (the question's chart waits)
        shows=Shows(n_charts=4)),
    "pages/amf.py": TourCase(
        query=small("pages/amf.py"),
        sets={1: {"signal": "doppler"}, 2: {"signal": "blocks"}, 3: {"signal": "heavisine"},
              4: {"noise": str(amf_defaults.MORE_NOISE),
                  "eta": str(amf_defaults.MORE_NOISE_STEP)}},
        n_charts=3, leave=("slider", "trees", 4),
        # weighted depth, fits, tree (the question's chart waits)
        shows=Shows(n_charts=3)),
    # a step drops the link's other values, so the tour runs at the defaults
    "pages/inference.py": TourCase(
        sets={2: {"lam": "14.0"}, 3: {"d": "2", "lam": "5.0"}, 4: {"clt_trees": "1"},
              5: {"n": "4000"}},
        n_charts=3),
}
TIMEOUT = 180


@pytest.fixture
def case(page, request) -> TourCase:
    case = CASES.get(page, TourCase())
    if case.tiny_figure8:
        request.getfixturevalue("tiny_figure8")
    return case


@pytest.mark.parametrize("page", [page for page in PAGES if CASES.get(page, TourCase()).shows])
def test_runs_with_defaults_and_shows_its_charts(page, case):
    shows = case.shows
    at = run_page(page, query=small(page) if shows.small else None, timeout=TIMEOUT)
    assert_clean(at)
    specs = chart_specs(at)
    assert len(specs) == shows.n_charts
    if shows.title is not None:
        assert at.title[0].value == shows.title
    for index, text in shows.chart_text.items():
        assert text in specs[index], index
    for texts in shows.markdown:
        assert any(all(t in m.value for t in texts) for m in at.markdown), texts
    for kind, keys in shows.sidebar.items():
        assert {w.key for w in getattr(at.sidebar, kind)} >= set(keys), kind


def _run(page, case, step) -> object:
    at = run_page(page, query={**case.query, "tour": str(step)}, timeout=TIMEOUT)
    _check_step(at, case, step)
    return at


def _check_step(at, case, step) -> None:
    assert_clean(at)
    assert at.query_params["tour"] == str(step)
    for key, value in case.sets.get(step, {}).items():
        assert at.query_params[key] == value, (step, key)
    if step in case.chart_text:
        assert case.chart_text[step] in chart_specs(at)[0], step
    if case.n_charts is not None:
        assert len(at.get("plotly_chart")) == case.n_charts, step


@pytest.mark.parametrize("page", PAGES)
def test_a_step_link_draws_a_fixed_picture_and_steps_differ(page, case):
    one, two = _run(page, case, 1), _run(page, case, 2)
    assert chart_specs(one) != chart_specs(two)
    assert chart_specs(_run(page, case, 2)) == chart_specs(two)


@pytest.mark.parametrize("page", PAGES)
def test_next_walks_through_every_step(page, case):
    at, step = _run(page, case, 1), 1
    while not at.button(key="tour__next").disabled:
        at.button(key="tour__next").click().run(timeout=TIMEOUT)
        step += 1
        _check_step(at, case, step)
    assert step >= 3, "a tour has 3 to 6 steps"


@pytest.mark.parametrize("page", PAGES)
def test_moving_a_widget_leaves_the_tour(page, case):
    at = _run(page, case, 1)
    at.button(key="tour__next").click().run(timeout=TIMEOUT)
    _check_step(at, case, 2)
    kind, key, value = case.leave
    widget = getattr(at, kind)(key=key)
    widget.set_value(value).run(timeout=TIMEOUT)
    assert_clean(at)
    assert "tour" not in at.query_params
    assert getattr(at, kind)(key=key).value == value


# ---------------------------------------------------------------- predict then reveal


@dataclass(frozen=True)
class Question:
    """What a page's question must show once revealed, beyond the generic checks."""

    #: the option to choose before revealing (the right one: the verdict says "Right.")
    guess: str | None = None
    #: text of the chart the reveal draws (its spec, as JSON text)
    chart_text: str = ""
    #: text of the answer line
    answer: str = "Answer: "


QUESTIONS = {
    "pages/mondrian_process.py": Question(chart_text="Cells of 1,000 Mondrians",
                                          answer="Answer: fewer than 4 times"),
    "pages/kernel_convergence.py": Question(chart_text="Random Fourier features",
                                            answer="Answer: about 2 times"),
    "pages/partition_gp.py": Question(guess="fewer iterations", chart_text="preconditioner B"),
    "pages/kernel_vs_forest.py": Question(guess="The kernel's (joint fit)",
                                          chart_text="number of weights"),
    "pages/online_forest.py": Question(guess="Only the Mondrian forest",
                                       chart_text="Standard deviation of the prediction"),
    "pages/amf.py": Question(guess="At or below it",
                             chart_text="best pruning in hindsight + log 2 per choice"),
}


@pytest.mark.parametrize("page", PAGES)
def test_revealing_the_answer_draws_the_question_chart(page, case):
    question = QUESTIONS.get(page, Question())
    at = run_page(page, query=small(page), timeout=TIMEOUT)
    assert_clean(at)
    reveal = [b for b in at.button if str(b.key).startswith("reveal_button__")]
    assert len(reveal) == 1, "a page asks one predict-then-reveal question"
    name = reveal[0].key.removeprefix("reveal_button__")
    before = chart_specs(at)
    if question.guess is not None:
        at.radio(key=f"guess__{name}").set_value(question.guess).run(timeout=TIMEOUT)
    at.button(key=f"reveal_button__{name}").click().run(timeout=TIMEOUT)
    assert_clean(at)
    after = chart_specs(at)
    assert len(after) == len(before) + 1
    assert any(question.chart_text in spec for spec in after if spec not in before)
    shown = " ".join(m.value for m in at.markdown)
    assert question.answer in shown
    if question.guess is not None:
        assert "Right." in shown
