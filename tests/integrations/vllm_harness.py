"""vLLM 0.33's OpenAI chat serving around a replayed model, for the serving-layer tests.

What is real: vLLM's ``VllmConfig`` (from parsed ``vllm serve`` arguments, for a local model folder
holding a Qwen3 ``config.json`` and the Qwen3.6 tokenizer written out by transformers), its
renderer (chat template, tokenizer), ``InputProcessor`` (the request's ``SamplingParams`` checked as
the engine checks them: ``thinking_token_budget`` included), ``OpenAIServingChat`` and
``OnlineRenderer`` built with the arguments ``init_app_state`` passes, and the v1
``OutputProcessor`` that detokenizes engine outputs into ``RequestOutput`` objects. What is not:
the model. :class:`ReplayEngine` is the ``EngineClient``: ``generate`` replays fixed token ids and
the end-of-turn token, ``step`` ids per engine step, through the ``OutputProcessor``.

Formats whose tokenizer is not Qwen3.6 run on an engine whose renderer holds that tokenizer (a
transformers fast tokenizer with toklane's ids), and a neutral chat template. The model folder and
the tokenizers come from :mod:`tests.integrations.serving_models` (built once, kept on disk).
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import AsyncGenerator
from typing import Any

os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import toklane
from toklane.integrations import vllm as toklane_vllm

from .serving_models import (
    CHAT_TEMPLATE,
    MODEL,
    NEUTRAL_TEMPLATE,
    Reply,
    fold_frames,
    hf_tokenizer,
    load_arguments,
    model_dir,
)

__all__ = [
    "CHAT_TEMPLATE",
    "MODEL",
    "NEUTRAL_TEMPLATE",
    "ReplayEngine",
    "Reply",
    "engine",
    "fold",
    "new_engine",
    "release",
    "run",
    "serving_chat",
    "stream",
    "toklane_tokenizer",
]


def serve_args(*flags: str) -> Any:
    """``vllm serve <model folder> <flags>`` parsed by vLLM's own argument parser."""
    from vllm.entrypoints.common.cli_args import make_arg_parser, validate_parsed_serve_args
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    parser = make_arg_parser(FlexibleArgumentParser())
    args = parser.parse_args(["--model", model_dir(), "--served-model-name", MODEL, "--max-model-len", "8192", *flags])
    validate_parsed_serve_args(args)
    from vllm.engine.arg_utils import AsyncEngineArgs

    # As `vllm serve` does on the way to its engine config: --reasoning-parser lands in the
    # structured-outputs config that the arguments share (init_app_state reads it there).
    AsyncEngineArgs.from_cli_args(args).create_structured_outputs_config()
    return args


@functools.cache
def vllm_config(reasoning_parser: str = "toklane_qwen3") -> Any:
    """The ``VllmConfig`` of ``vllm serve`` for the model folder (``--reasoning-parser`` given: vLLM
    builds its ``ReasoningConfig`` from it, as the thinking budget needs)."""
    from vllm.engine.arg_utils import AsyncEngineArgs

    toklane_vllm.register()  # the vllm.general_plugins entry point does this in a real server
    args = serve_args("--reasoning-parser", reasoning_parser)
    return AsyncEngineArgs.from_cli_args(args).create_engine_config()


class ReplayEngine:
    """vLLM's ``EngineClient`` with the model replaced by fixed token ids (:attr:`output`), replayed
    :attr:`step` ids per engine step through vLLM's real v1 ``OutputProcessor``."""

    def __init__(self, config: Any, renderer: Any) -> None:
        from vllm.v1.engine.input_processor import InputProcessor

        self.vllm_config = config
        self.model_config = config.model_config
        self.renderer = renderer
        self.input_processor = InputProcessor(config, renderer)
        self.io_processor = None
        self.errored = False
        self.is_running = True
        self.is_stopped = False
        self.dead_error = RuntimeError("engine dead")
        self.output: list[int] = []
        self.eos = config.model_config.hf_config.eos_token_id
        self.step = 1
        self.requests: list[Any] = []  # the EngineCoreRequests the InputProcessor made

    def check_admission(self, n: int, request_id: str | None = None) -> None:
        return None

    async def get_supported_tasks(self) -> tuple[str, ...]:
        return ("generate",)

    async def is_tracing_enabled(self) -> bool:
        return False

    async def do_log_stats(self) -> None:
        return None

    async def check_health(self) -> None:
        return None

    async def abort(self, request_id: Any, internal: bool = False) -> None:
        return None

    async def generate(self, prompt: Any, sampling_params: Any, request_id: str, **kwargs: Any) -> AsyncGenerator:
        from vllm.v1.engine import EngineCoreOutput, FinishReason
        from vllm.v1.engine.output_processor import OutputProcessor, RequestOutputCollector

        request = self.input_processor.process_inputs(
            request_id, prompt, sampling_params, supported_tasks=("generate",)
        )
        if kwargs.get("reasoning_ended") is not None:
            request.reasoning_ended = kwargs["reasoning_ended"]
        self.input_processor.assign_request_id(request)
        self.requests.append(request)
        processor = OutputProcessor(self.renderer.tokenizer, log_stats=False)
        queue = RequestOutputCollector(request.params.output_kind, request.request_id)
        processor.add_request(request, prompt.get("prompt") if isinstance(prompt, dict) else None, None, 0, queue)
        # The model ends with its end-of-turn token, which vLLM's detokenizer leaves out of the text.
        ids, step = [*self.output, self.eos], self.step
        for at in range(0, len(ids), step):
            last = at + step >= len(ids)
            out = EngineCoreOutput(
                request_id=request.request_id,
                new_token_ids=ids[at : at + step],
                finish_reason=FinishReason.STOP if last else None,
            )
            processor.process_outputs([out])
            while (result := queue.get_nowait()) is not None:
                yield result
            await asyncio.sleep(0)


@functools.cache
def engine(name: str = "qwen3.6") -> ReplayEngine:
    """:func:`new_engine`, kept for the session."""
    return new_engine(name)


def new_engine(name: str = "qwen3.6") -> ReplayEngine:
    """A replay engine whose renderer holds tokenizer ``name`` (Qwen3.6: the model folder's own)."""
    from vllm.renderers import renderer_from_config
    from vllm.renderers.hf import HfRenderer
    from vllm.tokenizers.hf import get_cached_tokenizer

    config = vllm_config()
    if name == "qwen3.6":
        return ReplayEngine(config, renderer_from_config(config))
    return ReplayEngine(config, HfRenderer(config, get_cached_tokenizer(hf_tokenizer(name))))


def release() -> None:
    """Drop the engines and tokenizers kept for the session (a test module's last step: their
    tokenizers are hundreds of MB each)."""
    import gc

    from . import serving_models

    engine.cache_clear()
    serving_models.release()
    gc.collect()


def toklane_tokenizer(eng: ReplayEngine) -> toklane.Tokenizer:
    """toklane's view of the tokenizer ``eng``'s renderer holds: the one toklane's parsers get."""
    return toklane.load_tokenizer(eng.renderer.tokenizer)


def serving_chat(
    eng: ReplayEngine,
    reasoning: str | None,
    tools: str | None,
    template: str | None = None,
    *,
    prefix: str = "toklane_",
) -> Any:
    """``OpenAIServingChat`` as ``init_app_state`` builds it for ``--reasoning-parser toklane_<reasoning>
    --tool-call-parser toklane_<tools> --enable-auto-tool-choice`` (``prefix=""``: vLLM's own parsers)."""
    from vllm.entrypoints.openai.chat_completion.serving import OpenAIServingChat
    from vllm.entrypoints.openai.models.protocol import BaseModelPath
    from vllm.entrypoints.openai.models.serving import OpenAIServingModels
    from vllm.renderers.online_renderer import OnlineRenderer

    names = {
        "tool_parser": f"{prefix}{tools}" if tools else None,
        "reasoning_parser": f"{prefix}{reasoning}" if reasoning else "",
        "enable_auto_tools": True,
    }
    models = OpenAIServingModels(engine_client=eng, base_model_paths=[BaseModelPath(name=MODEL, model_path=MODEL)])
    online = OnlineRenderer(
        eng.model_config,
        eng.renderer,
        request_logger=None,
        chat_template=template,
        chat_template_content_format="auto",
        **names,
    )
    return OpenAIServingChat(
        eng,
        models,
        "assistant",
        online_renderer=online,
        request_logger=None,
        chat_template=template,
        chat_template_content_format="auto",
        **names,
    )


async def _complete(serving: Any, body: dict[str, Any]) -> Any:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    return await serving.create_chat_completion(ChatCompletionRequest(**body))


def run(serving: Any, eng: ReplayEngine, body: dict[str, Any], output: list[int], step: int = 1) -> Reply:
    """One request through ``create_chat_completion`` with the engine replaying ``output``."""
    eng.output, eng.step = output, step
    if not body.get("stream"):
        response = asyncio.run(_complete(serving, body))
        assert hasattr(response, "choices"), response
        message = response.choices[0].message
        calls = [(c.function.name, load_arguments(c.function.arguments)) for c in message.tool_calls]
        return Reply(
            message.reasoning,
            message.content,
            calls,
            response.choices[0].finish_reason,
            [c.id for c in message.tool_calls],
        )

    return fold(stream(serving, eng, body, output, step))


def stream(serving: Any, eng: ReplayEngine, body: dict[str, Any], output: list[int], step: int = 1) -> list[str]:
    """The SSE frames of one streamed request (``body`` with ``"stream": True``)."""
    eng.output, eng.step = output, step

    async def frames() -> list[str]:
        return [frame async for frame in await _complete(serving, body)]

    return asyncio.run(frames())


def fold(frames: list[str]) -> Reply:
    """What a client ends up with from a stream's SSE frames."""
    return fold_frames(frames, "reasoning")
