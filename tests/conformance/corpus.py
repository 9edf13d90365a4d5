"""The conformance corpus: realistic model outputs of every format, each with its expected parse.

Each module in :mod:`tests.conformance.suites` holds ``SUITES``: the outputs of
one format (with the reasoning format it is served with), written from the
family's chat template and model card -- the shapes models really emit,
malformed ones included -- and what toklane must return for each. The runner
(``test_conformance.py``) parses every sample whole, character by character,
in random chunks and token by token, and requires the same result each way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Sample:
    """One model output and its expected parse.

    ``calls``: ``(name, arguments)`` pairs, arguments as the decoded JSON object.
    ``options``: parser options for this sample only (``thinking``, ``tools_schema``, ...),
    over the suite's.
    """

    name: str
    output: str
    reasoning: str | None = None
    content: str | None = None
    calls: tuple[tuple[str, dict[str, Any]], ...] = ()
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Suite:
    """Outputs of one tool format and/or reasoning format on one tokenizer.

    ``tokenizer``: a bundled tokenizer or a test tokenizer of
    :func:`tests.parsing.helpers.tokenizer` (register one with
    :func:`tests.parsing.helpers.register_tokenizer`). ``source``: where the
    shapes come from (chat template, model card, issue reports).
    """

    tokenizer: str
    reasoning: str | None
    tools: str | None
    samples: tuple[Sample, ...]
    options: dict[str, Any] = field(default_factory=dict)
    source: str = ""

    @property
    def id(self) -> str:
        return "+".join(x for x in (self.reasoning, self.tools) if x) + f"@{self.tokenizer}"

    def fmt(self, sample: Sample) -> dict[str, Any]:
        return {"reasoning": self.reasoning, "tools": self.tools, **self.options, **sample.options}


def call(name: str, **arguments: Any) -> tuple[str, dict[str, Any]]:
    """An expected call (``call("get_weather", location="Tokyo")``)."""
    return (name, arguments)
