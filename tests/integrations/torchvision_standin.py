"""A test-only stand-in for the two ``torchvision`` names SGLang 0.5.23's chat serving module imports.

Why: ``sglang.srt.entrypoints.openai.serving_chat`` imports, through SGLang's model-config registry,
``sglang.srt.multimodal.internvl_utils`` and ``sglang.srt.configs.deepseek_ocr``, which import
``torchvision.transforms`` (``InterpolationMode``, and ``functional`` as a module) at module level,
for image preprocessing that text chat never runs. PyPI's torchvision wheel is built against CUDA
torch and does not load beside the CPU torch these tests install, so it is not in
``benchmarks/requirements-peers.txt``.

What it provides: modules ``torchvision``, ``torchvision.transforms`` and
``torchvision.transforms.functional``, holding ``InterpolationMode`` (the enum's members by their
torchvision names and values) and nothing else: any other use of torchvision fails as loudly as
without it (``AttributeError`` on the stand-in).

How it is used: :func:`importing_sglang_serving` puts the stand-in in ``sys.modules`` only while
SGLang's serving module is imported, then takes it out again, so no other code in the test session
sees a torchvision. Before that it asks transformers whether torchvision is available (a cached
answer: no), so transformers never takes the stand-in for the real package.
"""

from __future__ import annotations

import enum
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["InterpolationMode", "importing_sglang_serving"]


class InterpolationMode(enum.Enum):
    """torchvision.transforms.InterpolationMode's members."""

    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


def _modules() -> dict[str, types.ModuleType]:
    root = types.ModuleType("torchvision", "Test stand-in (tests/integrations/torchvision_standin.py)")
    transforms = types.ModuleType("torchvision.transforms", root.__doc__)
    functional = types.ModuleType("torchvision.transforms.functional", root.__doc__)
    root.__path__ = []  # packages, so `import torchvision.transforms.functional` resolves
    transforms.__path__ = []
    functional.InterpolationMode = InterpolationMode  # type: ignore[attr-defined]
    transforms.InterpolationMode = InterpolationMode  # type: ignore[attr-defined]
    transforms.functional = functional  # type: ignore[attr-defined]
    root.transforms = transforms  # type: ignore[attr-defined]
    return {m.__name__: m for m in (root, transforms, functional)}


@contextmanager
def standin() -> Iterator[None]:
    """The stand-in in ``sys.modules`` for the duration (a real torchvision, if importable, is left alone)."""
    from transformers.utils import import_utils

    import_utils.is_torchvision_available()  # cached now, before the stand-in could be found
    try:
        import torchvision  # noqa: F401
    except Exception:  # absent, or PyPI's CUDA build failing beside CPU torch: drop what it left
        for name in [n for n in sys.modules if n == "torchvision" or n.startswith("torchvision.")]:
            del sys.modules[name]
    else:  # a torchvision that loads: nothing to stand in for
        yield
        return
    modules = _modules()
    sys.modules.update(modules)
    try:
        yield
    finally:
        for name, module in modules.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]


def importing_sglang_serving() -> types.ModuleType:
    """``sglang.srt.entrypoints.openai.serving_chat``, imported with the stand-in in place."""
    with standin():
        import sglang.srt.entrypoints.openai.serving_chat as serving_chat
    return serving_chat
