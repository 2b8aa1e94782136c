from tests.app.conftest import assert_clean, run_page


def test_home_runs():
    at = run_page("app.py")
    assert_clean(at)
    assert at.title[0].value == "Mondrian Explorer"
