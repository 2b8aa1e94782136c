"""Guided tours and predict-then-reveal questions: the teaching layer of every page.

A tour is a short list of :class:`Step`; step ``n`` is in the URL as ``tour=n`` (``tour=1``
is the first), so a lecturer's link opens the same step, with the same charts, for the
whole class. A step sets the page's widgets: every widget the page keeps in the URL
starts from its default, then the step's ``settings`` override some of them. Moving any
of those widgets leaves the tour (the URL loses ``tour``) and the page is free to explore
from there. Widgets, layout and text only.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import streamlit as st

from explorer_ui.echo import plain

#: URL keys that are not a page's widgets: they survive a tour step.
RESERVED_PARAMS = frozenset({"tour", "projector", "palette"})
_APPLIED = "_tour_applied"  # (page, step) whose settings this session last applied
#: The most steps a tour has (the prewarm visits this many steps of every page).
MAX_STEPS = 6


@dataclass(frozen=True)
class Step:
    """One step of a tour.

    ``settings`` maps widget keys to the values the step gives them (as the widget
    holds them in ``st.session_state``: a float for a float slider, a tuple for a range).
    """

    title: str
    text: str
    settings: Mapping[str, object] = field(default_factory=dict)


def leave_tour() -> None:
    """Widget callback: the user moved a widget, so the tour's step no longer holds."""
    if "tour" in st.query_params:
        del st.query_params["tour"]
    st.session_state[_APPLIED] = None


def _goto(n: int | None) -> None:
    if n is None:
        leave_tour()
    else:
        st.query_params["tour"] = str(n)


def _step_from_url(n_steps: int) -> int | None:
    raw = st.query_params.get("tour")
    if raw is None:
        return None
    try:
        n = int(raw)
        if not 1 <= n <= n_steps:
            raise ValueError(raw)
    except ValueError:
        shown = raw if len(raw) <= 20 else raw[:20] + "\u2026"
        st.toast(f"Ignored the link's tour={plain(repr(shown))}: this page's tour has steps 1 "
                 f"to {n_steps}.")
        del st.query_params["tour"]
        return None
    return n


class Tour:
    """The tour of one page.

    Call :meth:`start` before the page creates any widget (it applies the URL's step)
    and :meth:`panel` where the narrative goes.

    Parameters
    ----------
    page : str
        A name unique to the page.
    steps : sequence of Step
        Three to six steps.
    """

    def __init__(self, page: str, steps: Sequence[Step]):
        if not 3 <= len(steps) <= MAX_STEPS:
            raise ValueError(f"a tour has 3 to {MAX_STEPS} steps, not {len(steps)}")
        self.page = page
        self.steps = list(steps)
        self.current: int | None = None

    def start(self) -> int | None:
        """Apply the URL's step to the widgets (once per step change) and return its
        number, or None when the page is explored freely."""
        n = _step_from_url(len(self.steps))
        self.current = n
        if n is None:
            if (st.session_state.get(_APPLIED) or (None,))[0] == self.page:
                st.session_state[_APPLIED] = None
            return None
        if st.session_state.get(_APPLIED) != (self.page, n):
            for key in list(st.query_params):
                if key not in RESERVED_PARAMS:
                    del st.query_params[key]
                    st.session_state.pop(key, None)
            for key, value in self.steps[n - 1].settings.items():
                st.session_state.pop(key, None)
                st.session_state[key] = value
            st.session_state[_APPLIED] = (self.page, n)
        return n

    @property
    def step(self) -> Step | None:
        """The current step (after :meth:`start`), or None."""
        return None if self.current is None else self.steps[self.current - 1]

    def start_button(self, container=st) -> None:
        """The button that opens step 1 (shown when not on the tour)."""
        if self.current is None:
            container.button("Tour", icon=":material/school:", key="tour__start",
                             on_click=_goto, args=(1,),
                             help=f"{len(self.steps)} steps through this page's story; "
                                  "the arrow keys move between them.")

    def panel(self, container=st) -> None:
        """The step's narrative with Previous / Next buttons (arrow keys) and Exit."""
        if self.current is None:
            return
        n, total, step = self.current, len(self.steps), self.step
        box = container.container(border=True, key="tour_panel")
        box.markdown(f"**Tour {n}/{total} \u00b7 {step.title}**  \n{step.text}")
        row = box.container(horizontal=True, gap="small")
        row.button("Previous", icon=":material/arrow_back:", key="tour__prev",
                   disabled=n == 1, on_click=_goto, args=(n - 1,), shortcut="Left")
        row.button("Next", icon=":material/arrow_forward:", key="tour__next",
                   disabled=n == total, on_click=_goto, args=(n + 1,), shortcut="Right",
                   type="primary")
        row.button("Exit tour", key="tour__exit", on_click=_goto, args=(None,),
                   help="Leave the tour; the widgets keep this step's values.")


def predict_then_reveal(key: str, question: str, options: Sequence[str], answer: int,
                        explanation: str, container=st) -> bool:
    """Ask a question, let the student commit to an answer, then reveal.

    Returns True once the student has pressed *Reveal* (kept for the session): the
    caller then draws the chart that settles the question, after the returned
    explanation. Each student's guess stays in their own session.

    Parameters
    ----------
    key : str
        A key unique to the question on its page.
    question : str
        The question (markdown, KaTeX allowed).
    options : sequence of str
        The choices.
    answer : int
        The index of the right choice.
    explanation : str
        Why it is right (markdown), shown once revealed.
    container : streamlit container, optional
        Where to draw it.

    Returns
    -------
    bool
        Whether the answer is revealed.
    """
    shown = f"reveal__{key}"
    box = container.container(border=True, key=f"predict_{key}")
    box.markdown(f":material/quiz: **Predict first.** {question}")
    # an option that is only a formula has no text a screen reader (or axe) can name it
    # by: such choices are lettered, (a), (b)...
    lettered = any(re.fullmatch(r"\$[^$]+\$", o.strip()) for o in options)
    letters = {o: f"({chr(97 + i)}) {o}" for i, o in enumerate(options)}
    guess = box.radio("Your prediction", list(options), index=None, key=f"guess__{key}",
                      label_visibility="collapsed", horizontal=len(options) <= 3,
                      format_func=letters.get if lettered else str)
    if not st.session_state.get(shown):
        box.button("Reveal the answer", key=f"reveal_button__{key}",
                   on_click=lambda: st.session_state.__setitem__(shown, True),
                   help="Shows the answer and the chart that settles it.")
        return False
    right = options[answer]
    verdict = ("" if guess is None else
               ":green[**Right.**] " if guess == right else f":red[**Not quite**] (you chose *{guess}*). ")
    box.markdown(f"{verdict}**Answer: {right}.** {explanation}")
    return True
