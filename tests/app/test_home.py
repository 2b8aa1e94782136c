from explorer_ui.navigation import VIEWS
from explorer_ui.thumbnails import thumbnail_path
from tests.support import assert_clean, run_page

STEMS = [view.path.removeprefix("pages/").removesuffix(".py") for view in VIEWS]


def test_home_runs():
    at = run_page("app.py")
    assert_clean(at)
    assert at.title[0].value == "Mondrian Explorer"


def test_every_page_has_a_thumbnail_that_opens_its_tour():
    """One picture per page (its main chart, drawn by python -m tests.e2e.readme_screenshots),
    each linking to the first step of the page's tour."""
    at = run_page("app.py")
    for stem in STEMS:
        path = thumbnail_path(stem)
        assert path.exists(), f"no thumbnail for {stem}: python -m tests.e2e.readme_screenshots"
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    images = at.get("image")
    assert len(images) == len(STEMS)
    assert all(img.proto.imgs[0].url.endswith(".png") for img in images)  # lines stay sharp
    links = [img.proto.link for img in images]
    assert sorted(links) == sorted(f"{stem}?tour=1" for stem in STEMS), links
