"""Inference with Mondrian forests: confidence intervals that hold, from the central limit
theorem, the bias expansion and the debiasing of Cattaneo, Klusowski and Underwood
(2023/2026), and the rates of trees and forests of Mourtada, Gaiffas and Scornet (2020).

Claims shown at the defaults (explorer_ui/defaults_inference.py; checked over 10 seeds
by tests/claims/test_inference.py):

1. Coverage lab (d = 1, n = 1000, lambda = 7, B = 100): the plain forest's 95% intervals
   cover mu(x) far less often than 95% (about 69%: its bias is 1.5 standard deviations),
   the debiased forest's (J = 1) about 95% of the time, at 1.45 times the width; the
   app's smoothed Mondrian forest (return_std without noise, told the true noise) covers
   too, with intervals about 2.3 times the plain ones.
2. The Monte Carlo bias of both forests follows the exact limit bias (B_1 / lambda^2 for
   the plain one) and their standard deviations the CLT's sqrt(lambda^d V sigma^2 / n).
3. With B = 100 trees the standardised estimate is close to N(0, V); with one tree its
   spread is more than twice as wide.
4. The risk falls with n faster for the forest than for one tree (slopes near
   -4/(d+4) and -2/(d+2)).

Widgets, layout and text only; the numbers come from
``mondrian_core.experiments.inference``, the charts from ``mondrian_core.figures.inference``.
"""
from __future__ import annotations

import streamlit as st

from explorer_ui import defaults_inference as D
from explorer_ui.compute import SMALL_RESULTS, cached_with_progress
from explorer_ui.figure_cache import cached_figure
from explorer_ui.navigation import require_app_navigation
from explorer_ui.sources import Source
from explorer_ui.tour import Step, Tour, predict_then_reveal
from explorer_ui.widgets import (
    page_header,
    seed_control,
    show_figure,
    url_choice,
    url_slider,
    user_errors,
)
from mondrian_core.experiments.inference import (
    bias_sd_vs_lifetime,
    clt_statistics,
    coverage_repetitions,
    coverage_summary,
    risk_vs_n,
)
from mondrian_core.figures.inference import (
    bias_sd_figure,
    clt_figure,
    coverage_stack_figure,
    rates_figure,
)

require_app_navigation()

SOURCES = [
    Source(r"The centred forest estimate is asymptotically normal with variance "
           r"$\frac{\lambda^d}{n}\frac{\sigma^2(x)}{f(x)}\left(\frac{4 - 4\log 2}{3}\right)^d$.",
           "Cattaneo, Klusowski and Underwood (2023/2026), Theorem 3.1"),
    Source(r"The bias is a series in $1/\lambda^2$; its first term at uniform $X$ is "
           r"$\frac{1}{2\lambda^2}\sum_j \partial_j^2 \mu(x)$.",
           "Cattaneo, Klusowski and Underwood (2023/2026), Theorem 3.2"),
    Source(r"Forests at lifetimes $a_r\lambda$ combined with weights solving "
           r"$\sum_r \omega_r a_r^{-2s} = 1\{s = 0\}$ remove the first $J$ bias terms; the "
           r"variance constant becomes a double sum over the lifetimes.",
           "Cattaneo, Klusowski and Underwood (2023/2026), Theorems 4.1 and 4.2"),
    Source(r"The interval $\hat\mu(x) \pm z\,\sqrt{\hat\sigma^2(x)\sum_i w_i(x)^2}$ has "
           r"asymptotic coverage $1 - \alpha$ when the bias is negligible.",
           "Cattaneo, Klusowski and Underwood (2023/2026), sec. 5"),
    Source(r"The cell of a point has half-widths $\min(E/\lambda,\ \text{distance to the "
           r"face})$, $E \sim \mathrm{Exp}(1)$; one Mondrian tree reaches the rate "
           r"$n^{-2/(d+2)}$, a forest $n^{-4/(d+4)}$ on smooth functions.",
           "Mourtada, Gaïffas and Scornet (2020), Proposition 1, Theorems 2 and 3"),
    Source("At the defaults the plain 95% intervals cover about 69% of the time, the "
           "debiased ones about 94%, the smoothed forest's about 98% at 2.3 times the "
           "plain width.", "tests/claims/test_inference.py, 10 seeds; bench/RESULTS.md, "
           "1,000 repetitions", own=True),
]

TOUR = Tour("inference", [
    Step("Plain intervals miss",
         r"Forty data sets, each with its 95% intervals at the centre. The **plain** "
         r"forest's miss $\mu(x)$ (red bars) about a third of the time: at $\lambda = 7$ "
         r"its bias, about $-0.08$, is 1.5 times its standard deviation, and the interval "
         r"is centred on the biased estimate. The **debiased** forest's cover about 95% of "
         r"the time. Press *Repeat* to add data sets and watch the running coverage settle.",
         {}),
    Step("A longer lifetime: less bias, more variance",
         r"At $\lambda = 14$ the bias falls to a quarter ($B_1/\lambda^2$) while the "
         r"standard deviation grows like $\sqrt{\lambda}$: now the plain intervals cover "
         r"nearly 95%, and they are about as wide as the debiased ones were at "
         r"$\lambda = 7$.",
         {"lam": 14.0}),
    Step("Two dimensions",
         r"In $d = 2$ at $\lambda = 5$ the bias doubles (one term per dimension) and "
         r"the plain forest almost never covers. The debiased one covers far more often; "
         r"over many data sets about 90%, a little short of 95%: its remaining bias and "
         r"the empty cells (each counts as 0, as in the paper) pull the estimate down. "
         r"Press *Repeat* $\times 20$ a few times to watch the running coverage settle.",
         {"d": "2", "lam": 5.0}),
    Step("Too few trees",
         r"The histogram below (the central limit theorem) with $B = 1$: one tree's "
         r"estimate spreads more than twice as wide as $\mathcal{N}(0, V)$. Its cell is "
         r"random, so its own bias varies from tree to tree; the paper needs $B$ to grow "
         r"with $n$.",
         {"clt_trees": 1}),
    Step("More data",
         r"With $n = 4000$ points at the same $\lambda$ the standard deviation halves but "
         r"the bias stays: the plain intervals get narrower around the wrong centre and "
         r"cover even less. Debiasing is what keeps them honest.",
         {"n": 4000}),
])

page_header(
    "Inference with Mondrian forests",
    r"Cattaneo, Klusowski and Underwood (2023/2026) read the Mondrian random forest as a "
    r"statistical estimator. Each of $B$ trees is a Mondrian process of lifetime "
    r"$\lambda$ on the unit cube, drawn without looking at the data; a tree predicts the "
    r"average response in the cell of $x$, the forest the mean of its trees. Then "
    r"$\sqrt{n/\lambda^d}\,(\hat\mu(x) - \mathbb{E}[\hat\mu(x)])$ is asymptotically normal "
    r"(Theorem 3.1), the bias is a series $\sum_r B_r(x)/\lambda^{2r}$ (Theorem 3.2), and "
    r"forests at lifetimes $a_r\lambda$ combined with jackknife weights $\omega$ remove "
    r"its first terms (Theorems 4.1, 4.2; here $a_r = 1.5^r$ as in the authors' code, "
    r"where the paper suggests $1.05^r$), so that "
    r"$\hat\mu(x) \pm 1.96\sqrt{\hat\sigma^2(x)\sum_i w_i(x)^2}$ is an honest 95% interval. "
    r"Here the data are $X$ uniform on $[0,1]^d$, $\mu(x) = \sum_j \sin(\pi x_j)$, noise "
    r"$\mathcal{N}(0, 1)$, and $x$ the centre. The estimator is "
    r"`mondrian_core.DebiasedMondrianForestRegressor`.",
    tour=TOUR, sources=SOURCES,
)

side = st.sidebar
side.subheader("Data and forest")
d = int(url_choice("Dimension $d$", "d", ["1", "2"], default=D.DIM, widget="segmented",
                   container=side))
n = url_slider("Training points $n$", "n", min_value=200, max_value=5000, default=D.N,
               step=100, container=side)
lam = url_slider(r"Lifetime $\lambda$", "lam", min_value=1.0, max_value=30.0,
                 default=D.LIFETIME, step=0.5, container=side)
trees = url_slider("Trees per forest $B$", "trees", min_value=5, max_value=300,
                   default=D.TREES, step=5, container=side)
J = int(url_choice("Debiasing order $J$", "J", ["1", "2"], default=D.DEBIAS_ORDER,
                   widget="segmented", container=side,
                   help="J + 1 forests at lifetimes 1.5^r λ; J bias terms removed."))
with side.expander("Monte Carlo sizes"):
    bias_reps = url_slider("Data sets per lifetime (bias chart)", "bias_reps", min_value=10,
                           max_value=400, default=D.BIAS_REPETITIONS, step=10)
    clt_reps = url_slider("Data sets (CLT histogram)", "clt_reps", min_value=50,
                          max_value=2000, default=D.CLT_REPETITIONS, step=50)
    rate_reps = url_slider("Data sets per n (rates)", "rate_reps", min_value=5,
                           max_value=200, default=D.RATE_REPETITIONS, step=5)
side.divider()
seed = seed_control("seed", default=D.SEED, container=side)


#: The progress bar's text until the experiment reports its own ("Data set 3 of 40").
STARTING = "Starting\u2026"


# Each result is computed once per server for its settings (the first data sets of a
# stack are everyone's); the key holds every value it depends on. All are a few kB, and
# every Repeat makes one: they are kept with the other small results.
def _stack(d, n, lam, trees, J, seed, start, count):
    return cached_with_progress(
        ("inference: coverage", d, n, lam, trees, J, seed, start, count),
        lambda progress: coverage_repetitions(
            start, count, d=d, n=n, lifetime=lam, n_trees=trees, debias_order=J,
            noise=D.NOISE, level=D.LEVEL, seed=seed, progress=progress),
        STARTING, store=SMALL_RESULTS)


def _first_stack(d, n, lam, trees, J, seed):
    return _stack(d, n, lam, trees, J, seed, 0, D.INITIAL_REPETITIONS)


def _bias_curves(d, n, trees, J, reps, seed):
    return cached_with_progress(
        ("inference: bias and sd", d, n, trees, J, reps, seed),
        lambda progress: bias_sd_vs_lifetime(
            D.BIAS_LIFETIMES, d=d, n=n, n_trees=trees, debias_order=J, noise=D.NOISE,
            repetitions=reps, seed=seed, progress=progress),
        STARTING, store=SMALL_RESULTS)


def _clt_draws(d, n, lam, clt_trees, reps, seed):
    return cached_with_progress(
        ("inference: central limit theorem", d, n, lam, clt_trees, reps, seed),
        lambda progress: clt_statistics(
            d=d, n=n, lifetime=lam, n_trees=clt_trees, noise=D.NOISE, repetitions=reps,
            seed=seed, progress=progress),
        STARTING, store=SMALL_RESULTS)


def _rates(d, reps, seed):
    return cached_with_progress(
        ("inference: rates", d, reps, seed),
        lambda progress: risk_vs_n(D.RATE_NS, d=d, repetitions=reps, noise=D.NOISE,
                                   seed=seed, progress=progress),
        STARTING, store=SMALL_RESULTS)


# ---------------------------------------------------------------- the coverage lab
settings = (d, n, lam, trees, J, seed)
params = dict(d=d, n=n, lam=lam, B=trees, J=J, seed=seed)
with user_errors():
    if st.session_state.get("inference_stack", (None,))[0] != settings:
        # a new setting starts a new stack (the first data sets are shared by everyone)
        st.session_state["inference_stack"] = (settings, _first_stack(*settings))
    stack = st.session_state["inference_stack"][1]

row = st.container(horizontal=True, vertical_alignment="center", gap="small")
repeat_one = row.button("Repeat", icon=":material/replay:", type="primary", key="repeat_one",
                        help="Draw another data set, fit the forests, add its intervals.")
repeat_many = row.button(f"Repeat \u00d7{D.BATCH}", icon=":material/fast_forward:",
                         key="repeat_many")
restart = row.button("Start over", icon=":material/restart_alt:", key="restart",
                     help=f"Back to the first {D.INITIAL_REPETITIONS} data sets.")
if repeat_one or repeat_many:
    count = 1 if repeat_one else D.BATCH
    with user_errors():
        more = _stack(*settings, stack.lower.shape[0], count)
    stack = stack.extended(more)
    st.session_state["inference_stack"] = (settings, stack)
elif restart:
    stack = _first_stack(*settings)
    st.session_state["inference_stack"] = (settings, stack)

summary = coverage_summary(stack)
names = ["plain forest", f"debiased (J = {J})", "smoothed forest"]
show_figure(coverage_stack_figure(stack, summary, names=names, level=D.LEVEL),
            "coverage-lab", params={**params, "runs": summary["count"]}, main=True)
cov, se, width = summary["coverage"], summary["se"], summary["width"]
st.caption(
    f"**{summary['count']} data sets.** Plain forest: covers {cov[0]:.0%} "
    f"(\u00b1{se[0]:.0%}), mean width {width[0]:.3f}. Debiased: {cov[1]:.0%} "
    f"(\u00b1{se[1]:.0%}), width {width[1]:.3f}. Smoothed forest "
    f"(*MondrianForestRegressor*, 10 trees, *return_std* without the noise, told the "
    f"true noise variance): {cov[2]:.0%}, width {width[2]:.3f}. "
    "The plain interval is centred on a biased estimate, so at a small lifetime it "
    "misses more often than 5%; the debiased one pays for its smaller bias with "
    "a wider interval. The smoothed forest's band is a Bayesian model's posterior "
    "spread, not a frequentist interval"
    + (f": here it is {width[2] / width[0]:.1f} times as wide as the plain one."
       if width[2] > 1.5 * width[0] else ".")
    + (f" Empty cells: {stack.empty_rate.mean():.2%} of all cells (each counts as 0)."
       if stack.empty_rate.mean() > 0.001 else ""))

# ---------------------------------------------------------------- bias and sd
st.subheader("Bias and standard deviation against the lifetime")
if predict_then_reveal(
        "bias_quarter",
        r"Double the lifetime $\lambda$. What happens to the plain forest's bias at $x$?",
        ["It halves", "It falls to a quarter", "It stays the same"], 1,
        r"The bias is $B_1(x)/\lambda^2 + B_2(x)/\lambda^4 + \dots$ (Theorem 3.2): doubling "
        r"$\lambda$ divides its leading term by 4. Meanwhile the standard deviation grows "
        r"like $\lambda^{d/2}$, the trade-off any smoother makes. Debiasing with $J = 1$ "
        r"removes the $1/\lambda^2$ term, so the debiased bias falls like $1/\lambda^4$ "
        r"(by 16; with $J = 2$ like $1/\lambda^6$)."):
    with user_errors():
        curves = _bias_curves(d, n, trees, J, bias_reps, seed)
    show_figure(cached_figure(bias_sd_figure, curves), "bias-sd",
                params=dict(d=d, n=n, B=trees, J=J, seed=seed))
    st.caption(
        f"Points: Monte Carlo over {curves.repetitions} data sets per lifetime (bars: two "
        r"standard errors). Lines: the exact bias as $n, B \to \infty$ (the cell average "
        r"of $\mu$ under the cell's known distribution) and the CLT's standard deviation "
        r"$\sqrt{\lambda^d V \sigma^2/n}$. At small $\lambda$ the cells often reach the "
        r"cube's faces, which the standard deviation's asymptotics leave out.")

# ---------------------------------------------------------------- the CLT
st.subheader("The central limit theorem, and too few trees")
clt_trees = url_slider("Trees $B$ for the histogram", "clt_trees", min_value=1,
                       max_value=300, default=D.CLT_TREES)
with user_errors():
    draws = _clt_draws(d, n, lam, clt_trees, clt_reps, seed)
# the name is the chart's accessible name when it has no title: words, not an acronym
show_figure(cached_figure(clt_figure, draws), "central-limit-theorem",
            params=dict(d=d, n=n, lam=lam, B=clt_trees, seed=seed))
st.caption(
    rf"{draws.statistics.size} data sets, each with fresh trees: the plain forest's estimate, "
    r"centred by $\mu(x)$ plus the exact bias and scaled by $\sqrt{n/\lambda^d}/\sigma$. "
    r"Theorem 3.1 gives $\mathcal{N}(0, V)$, $V = ((4 - 4\log 2)/3)^d$ (red). With few "
    r"trees the spread grows: the dotted line adds each tree's own noise term "
    r"$(1 - V)/B$, and the rest is the trees' bias varying from cell to cell.")

# ---------------------------------------------------------------- rates
st.subheader("Why forests beat trees: the rates")
with user_errors():
    risk = _rates(d, rate_reps, seed)
show_figure(cached_figure(rates_figure, risk), "error-rates-of-trees-and-forests",
            params=dict(d=d, seed=seed))
st.caption(
    rf"Mean squared error at $x = (1/3, \dots)$ over {rate_reps} data sets per "
    r"$n$, each learner at its rate-optimal lifetime ($3n^{1/(d+2)}$, $3n^{1/(d+4)}$, "
    r"$3n^{1/(d+8)}$; forests of $\lceil n^{2/3}\rceil$ trees). One tree's random cell sits "
    r"off-centre by about $1/\lambda$, which costs it a variance of order $1/\lambda^2$; "
    r"averaging many trees removes that, so the forest can use a smaller lifetime and "
    r"reaches $n^{-4/(d+4)}$ (Mourtada, Gaïffas and Scornet 2020), the debiased forest "
    r"faster still. Dashed: the theoretical slopes; the legend gives the fitted ones "
    r"(one tree's error is heavy-tailed, so its slope is the noisiest).")
