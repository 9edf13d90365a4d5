"""SGLang 0.5.23's OpenAI chat serving around a replayed model, for the serving-layer tests.

What is real: ``ServerArgs`` parsed from ``python -m sglang.launch_server`` arguments by SGLang's
own argument parser and published as SGLang's tokenizer process publishes them
(``runtime_context.publish(..., role="tokenizer")``), the ``ModelConfig`` built from them (a tiny
Qwen3 ``config.json``), SGLang's tokenizer loader on the model folder (Qwen3.6), the
``TemplateManager`` (chat template, reasoning-toggle detection), ``OpenAIServingChat.handle_request``
(the chat template, sampling parameters with the tool-choice constraint, reasoning and tool-call
parsers chosen by name, SSE chunks, the whole response, finish reasons), and the incremental
decoding of SGLang's ``DetokenizerManager`` (its ``_decode_batch_token_id_output``, fed what the
scheduler sends it: the prompt's last five ids before the first output ids, then each step's new
ids, the end-of-turn token as the matched stop).

What stands in: :class:`ReplayTokenizerManager`, the part of SGLang's ``TokenizerManager`` the
serving code uses (its config, tokenizer, model config, request logger, ``generate_request``).
``generate_request`` records the ``GenerateReqInput`` and replays fixed token ids, ``step`` per
scheduler step, through the detokenizer's code, yielding what ``TokenizerManager`` yields: the
text so far, the output ids and ``meta_info`` (finish reason on the last). No scheduler, no model.

Formats whose tokenizer is not Qwen3.6 run on a server whose tokenizer is that vocabulary's (from
:mod:`tests.integrations.serving_models`, with ``--chat-template`` a neutral template), as in the
vLLM harness. SGLang's serving module imports torchvision for image code that text chat never
runs: :mod:`tests.integrations.torchvision_standin` stands in for it while the module is imported.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from .serving_models import (
    MODEL,
    NEUTRAL_TEMPLATE,
    Reply,
    fold_frames,
    load_arguments,
    model_dir,
    new_hf_tokenizer,
    served_as,
    template_file,
)
from .torchvision_standin import importing_sglang_serving

serving_chat_module = importing_sglang_serving()

from sglang.srt.configs.model_config import ModelConfig  # noqa: E402
from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest  # noqa: E402
from sglang.srt.managers.detokenizer_manager import DetokenizerManager, LimitedCapacityDict  # noqa: E402
from sglang.srt.managers.schedule_batch import INIT_INCREMENTAL_DETOKENIZATION_OFFSET  # noqa: E402
from sglang.srt.managers.tokenizer_manager import TokenizerManager  # noqa: E402
from sglang.srt.parser.response_template import tool_close_token_ids  # noqa: E402
from sglang.srt.parser.template_manager import TemplateManager  # noqa: E402
from sglang.srt.runtime_context import get_model, get_observability, get_serving, publish  # noqa: E402
from sglang.srt.server_args import ServerArgs  # noqa: E402
from sglang.srt.utils.hf_transformers_utils import get_tokenizer  # noqa: E402
from sglang.srt.utils.request_logger import RequestLogger  # noqa: E402

from toklane.integrations import sglang as toklane_sglang  # noqa: E402

OpenAIServingChat = serving_chat_module.OpenAIServingChat
QWEN = "qwen3.6"

__all__ = ["MODEL", "QWEN", "ReplayTokenizerManager", "Reply", "Server", "fold", "release", "run", "server", "stream"]


def server_args(reasoning: str | None, tools: str | None, name: str = QWEN, *, prefix: str = "toklane_") -> ServerArgs:
    """``python -m sglang.launch_server --model-path <model folder> ...`` as SGLang parses it:
    ``--reasoning-parser toklane_<reasoning> --tool-call-parser toklane_<tools>``, and for a tokenizer
    other than Qwen3.6 (which the stand-in manager holds in place of the folder's) ``--chat-template``
    a neutral template. ``prefix=""``: SGLang's own parsers of those names."""
    toklane_sglang.register()  # the sglang.srt.plugins entry point does this in a real server
    parser = argparse.ArgumentParser()
    ServerArgs.add_cli_args(parser)
    argv = ["--model-path", model_dir(), "--device", "cpu", "--served-model-name", MODEL]
    if reasoning:
        argv += ["--reasoning-parser", f"{prefix}{reasoning}"]
    if tools:
        argv += ["--tool-call-parser", f"{prefix}{tools}"]
    if name != QWEN:
        argv += ["--chat-template", str(template_file(NEUTRAL_TEMPLATE))]
    return ServerArgs.from_cli_args(parser.parse_args(argv))


@functools.cache
def _qwen_tokenizer() -> Any:
    """SGLang's tokenizer of the model folder, loaded as ``TokenizerManager`` loads it (once: ~5 s)."""
    return get_tokenizer(
        get_serving().tokenizer_path,
        tokenizer_mode=get_serving().tokenizer_mode,
        trust_remote_code=get_model().trust_remote_code,
        revision=get_model().revision,
        tokenizer_backend=get_serving().tokenizer_backend,
    )


@functools.cache
def _other_tokenizer(key: str) -> Any:
    return new_hf_tokenizer(key)


def release() -> None:
    """Drop the tokenizers kept for the session (a test module's last step)."""
    import gc

    _qwen_tokenizer.cache_clear()
    _other_tokenizer.cache_clear()
    gc.collect()


def _detokenizer(tokenizer: Any) -> DetokenizerManager:
    """SGLang's ``DetokenizerManager`` without its process and sockets: the state its ``init_tokenizer``
    and ``init_running_status`` set, read from the published config as they read it."""
    detokenizer = DetokenizerManager.__new__(DetokenizerManager)
    detokenizer.tokenizer = tokenizer
    detokenizer.vocab_size = len(tokenizer)
    detokenizer.decode_status = LimitedCapacityDict(capacity=1 << 16)
    detokenizer.disable_tokenizer_batch_decode = get_serving().disable_tokenizer_batch_decode
    detokenizer.is_tool_call_parser_gpt_oss = get_serving().tool_call_parser == "gpt-oss"
    detokenizer.tool_close_token_ids = tool_close_token_ids(get_serving().tool_call_parser, tokenizer)
    return detokenizer


class ReplayTokenizerManager:
    """The ``TokenizerManager`` interface SGLang's chat serving uses, with the model replaced by
    fixed token ids (:attr:`output`), replayed :attr:`step` ids per scheduler step through SGLang's
    detokenizer code."""

    config_value = TokenizerManager.config_value  # the published config, as the real one reads it

    def __init__(self, args: ServerArgs, tokenizer: Any) -> None:
        self.server_args = args
        self.model_path = get_model().model_path
        self.served_model_name = get_serving().served_model_name
        self.model_config = ModelConfig.from_server_args(args)
        self.tokenizer = tokenizer
        self.processor = None
        observability = get_observability()
        self.request_logger = RequestLogger(
            log_requests=observability.log_requests,
            log_requests_level=observability.log_requests_level,
            log_requests_format=observability.log_requests_format,
            log_requests_target=observability.log_requests_target,
        )
        self.incremental_streaming_output = get_serving().incremental_streaming_output
        self.detokenizer = _detokenizer(tokenizer)
        self.eos: int = self.model_config.hf_config.eos_token_id
        self.output: list[int] = []
        self.step = 1
        self.requests: list[Any] = []  # the GenerateReqInputs the serving code made

    def create_abort_task(self, obj: Any) -> None:
        return None  # no scheduler to abort in

    async def generate_request(self, obj: Any, request: Any = None) -> AsyncIterator[dict[str, Any]]:
        obj.normalize_batch_and_arguments()
        self.requests.append(obj)
        prompt = list(obj.input_ids) if obj.input_ids is not None else self.tokenizer.encode(obj.text)
        params = obj.sampling_params or {}
        rid = obj.rid if isinstance(obj.rid, str) else uuid.uuid4().hex
        ids = [*self.output, self.eos]  # the model ends with its end-of-turn token: the matched stop
        step = self.step if obj.stream else len(ids)  # a whole response: one detokenized piece
        surrounding = prompt[-INIT_INCREMENTAL_DETOKENIZATION_OFFSET:]
        text, output_ids = "", []
        for at in range(0, len(ids), step):
            new = ids[at : at + step]
            finish = {"type": "stop", "matched": self.eos} if at + step >= len(ids) else None
            batch = SimpleNamespace(
                rids=[rid],
                decoded_texts=[""],
                decode_ids=[(surrounding if at == 0 else []) + new],
                read_offsets=[len(surrounding)],
                finished_reasons=[finish],
                no_stop_trim=[params.get("no_stop_trim", False)],
                skip_special_tokens=[params.get("skip_special_tokens", True)],
                spaces_between_special_tokens=[params.get("spaces_between_special_tokens", True)],
            )
            (piece,) = self.detokenizer._decode_batch_token_id_output(batch)
            text += piece
            output_ids += new
            meta = {
                "id": rid,
                "finish_reason": finish,
                "prompt_tokens": len(prompt),
                "weight_version": self.config_value("weight_version"),
                "num_retractions": 0,
                "reasoning_tokens": 0,
                "completion_tokens": len(output_ids),
                "cached_tokens": 0,
            }
            incremental = obj.stream and self.incremental_streaming_output
            yield {"text": piece if incremental else text, "output_ids": list(output_ids), "meta_info": meta}
            await asyncio.sleep(0)


@dataclass
class Server:
    """One SGLang server: its published arguments, the stand-in TokenizerManager, the TemplateManager
    and ``OpenAIServingChat``."""

    args: ServerArgs
    manager: ReplayTokenizerManager
    templates: TemplateManager
    chat: Any


_published: list[ServerArgs] = []


def _publish(args: ServerArgs) -> None:
    """Make ``args`` the process's config (one server per process in SGLang: the last publish wins)."""
    if not _published or _published[-1] is not args:
        publish(args, role="tokenizer")
        _published[:] = [args]


def server(reasoning: str | None, tools: str | None, name: str = QWEN, *, prefix: str = "toklane_") -> Server:
    """A server of the model folder with ``--reasoning-parser toklane_<reasoning>`` and
    ``--tool-call-parser toklane_<tools>`` (``prefix=""``: SGLang's own), holding tokenizer ``name``'s
    vocabulary."""
    args = server_args(reasoning, tools, name, prefix=prefix)
    _publish(args)
    tokenizer = _qwen_tokenizer() if name == QWEN else _other_tokenizer(served_as(name))
    manager = ReplayTokenizerManager(args, tokenizer)
    templates = TemplateManager()
    templates.initialize_templates(
        tokenizer_manager=manager,  # type: ignore[arg-type]
        model_path=get_model().model_path,
        chat_template=get_serving().chat_template,
        completion_template=get_serving().completion_template,
    )
    return Server(args, manager, templates, OpenAIServingChat(manager, templates))  # type: ignore[arg-type]


def run(srv: Server, body: dict[str, Any], output: list[int], step: int = 1) -> Reply:
    """One request through ``OpenAIServingChat.handle_request`` with the model replaying ``output``."""
    if body.get("stream"):
        return fold(stream(srv, body, output, step))
    _publish(srv.args)
    srv.manager.output, srv.manager.step = output, step
    response = asyncio.run(srv.chat.handle_request(ChatCompletionRequest.model_validate(body), None))
    assert hasattr(response, "choices"), getattr(response, "body", response)
    message = response.choices[0].message
    calls = [(c.function.name, load_arguments(c.function.arguments)) for c in message.tool_calls or ()]
    return Reply(
        message.reasoning_content,
        message.content,
        calls,
        response.choices[0].finish_reason,
        [c.id for c in message.tool_calls or ()],
    )


def stream(srv: Server, body: dict[str, Any], output: list[int], step: int = 1) -> list[str]:
    """The SSE frames of one streamed request (``body`` with ``"stream": True``)."""
    _publish(srv.args)
    srv.manager.output, srv.manager.step = output, step
    request = ChatCompletionRequest.model_validate(body)

    async def frames() -> list[str]:
        response = await srv.chat.handle_request(request, None)
        assert hasattr(response, "body_iterator"), getattr(response, "body", response)
        return [f if isinstance(f, str) else f.decode() async for f in response.body_iterator]

    return asyncio.run(frames())


def fold(frames: list[str]) -> Reply:
    """What a client ends up with from a stream's SSE frames."""
    return fold_frames(frames, "reasoning_content")
