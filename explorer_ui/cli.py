"""``mondrian-explorer``: start the app as ``streamlit run app.py`` would.

Extra arguments go to ``streamlit run`` (e.g. ``--server.port 8502``). From a checkout
or an editable install the checkout's ``app.py`` runs; from a wheel, the copy installed
under ``<prefix>/share/mondrian-explorer`` (with its ``pages/`` and ``.streamlit/``).

Prewarm: once the server answers its health check, a background thread opens the default
link of every page once (:func:`explorer_ui.session_client.prewarm`, a session like a
student's), so the results a class's first student would wait for are already computed.
Streamlit has no start-up hook for an app, and a visit goes through exactly the cached
functions a student's does. ``MONDRIAN_PREWARM=0`` turns it off.
"""
from __future__ import annotations

import os
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


def server_port(args: list[str]) -> int:
    """The port ``streamlit run`` will listen on, from its arguments or environment."""
    port = os.environ.get("STREAMLIT_SERVER_PORT", "8501")
    for i, arg in enumerate(args):
        if arg == "--server.port" and i + 1 < len(args):
            port = args[i + 1]
        elif arg.startswith("--server.port="):
            port = arg.split("=", 1)[1]
    return int(port)


def _report(visits, what: str = "pages") -> None:
    failed = [v.url for v in visits if not v.ok]
    print(f"mondrian-explorer: prewarmed {len(visits) - len(failed)} of {len(visits)} {what}"
          + (f"; failed: {', '.join(failed)}" if failed else ""), file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        from streamlit.web import cli as streamlit_cli
    except ImportError:
        raise SystemExit("mondrian-explorer needs Streamlit: "
                         "pip install 'mondrian-explorer[app]'") from None
    if os.environ.get("MONDRIAN_PREWARM", "1") != "0":
        from explorer_ui.session_client import prewarm_in_background

        prewarm_in_background(f"http://127.0.0.1:{server_port(args)}", report=_report)
    sys.argv = ["streamlit", "run", str(app_path()), *args]
    return streamlit_cli.main()


if __name__ == "__main__":
    sys.exit(main())
