"""The paper-figure command: ``python -m mondrian_core.paper`` renders the papers' figures
from the same experiment recipes and figure builders that the pages use."""
