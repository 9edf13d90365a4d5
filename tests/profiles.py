"""Hypothesis profiles: ``ci`` (the default: what CI and the README's test command run), ``dev`` (a
quick local loop, a quarter of the examples: ``pytest --hypothesis-profile=dev``) and ``soak`` (ten
times, for a long run outside CI). Every test sizes its
examples with :func:`examples`, so one switch scales them all; no test reads an environment variable
for it."""

from __future__ import annotations

from hypothesis import settings

# deadline=None: these machines are shared and noisy; a slow example is not a failure (speed is
# measured in benchmarks/, never asserted in tests).
settings.register_profile("ci", deadline=None)
settings.register_profile("dev", parent=settings.get_profile("ci"), max_examples=25)
settings.register_profile("soak", parent=settings.get_profile("ci"), max_examples=1000)  # a long run, not CI
settings.load_profile("ci")

# The examples the ci profile runs per test where a test does not say (hypothesis' default).
_CI_EXAMPLES = 100


def examples(n: int) -> int:
    """``n`` examples under the ci profile, scaled with the profile in use (``dev``: a quarter, ``soak``:
    ten times), at least 1."""
    return max(1, n * settings().max_examples // _CI_EXAMPLES)
