"""``mondrian-explorer``: start the app as ``streamlit run app.py`` would.

Extra arguments go to ``streamlit run`` (e.g. ``--server.port 8502``). From a checkout
or an editable install the checkout's ``app.py`` runs; from a wheel, the copy installed
under ``<prefix>/share/mondrian-explorer`` (with its ``pages/`` and ``.streamlit/``).
"""
from __future__ import annotations

import sys
import sysconfig
from pathlib import Path


def app_path() -> Path:
    """The ``app.py`` to run: the checkout's, else the installed copy."""
    checkout = Path(__file__).resolve().parent.parent / "app.py"
    if checkout.is_file():
        return checkout
    installed = Path(sysconfig.get_path("data")) / "share" / "mondrian-explorer" / "app.py"
    if installed.is_file():
        return installed
    raise SystemExit("mondrian-explorer: app.py was not found beside explorer_ui nor under "
                     f"{installed.parent}; reinstall with `pip install 'mondrian-explorer[app]'`.")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        from streamlit.web import cli as streamlit_cli
    except ImportError:
        raise SystemExit("mondrian-explorer needs Streamlit: "
                         "pip install 'mondrian-explorer[app]'") from None
    sys.argv = ["streamlit", "run", str(app_path()), *args]
    return streamlit_cli.main()
