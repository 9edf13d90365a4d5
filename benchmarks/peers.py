"""The peers' own whole-output parsers, installed and imported in this process (``requirements-peers.txt``).

One small adapter per peer and format. ``whole_output_peers(fmt_key, ...)`` builds each peer's parser
once (untimed: construction is measured in its own table) and returns ``{label: parse}`` where
``parse(text, ids) -> (reasoning, content, [(name, arguments_json)])`` runs the peer's whole-output path
on one output: vLLM's ``Parser.parse`` (the serving layer's non-streaming path: the reasoning parser's
``extract_reasoning``, then the tool parser's ``extract_tool_calls`` on the content; for gpt-oss its
Harmony parser over the token ids) and SGLang's ``ReasoningParser.parse_non_stream`` then
``FunctionCallParser.parse_non_stream`` (the detector's ``detect_and_parse``). A peer that cannot be
imported is left out and named in ``unavailable``, with the reason.

Both peers take a transformers tokenizer (``transformers_tokenizer``): built here from toklane's
bundled ranks and added tokens (no download), the same vocabulary toklane parses with.
"""

from __future__ import annotations

import base64
import logging
import os
import tempfile
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import toklane

Parsed = tuple[str | None, str | None, list[tuple[str, str]]]
PeerParse = Callable[[str, list[int]], Parsed]

# fmt_key -> one (peer, reasoning parser, tool parser) per configuration measured, in the peer's own registry
# names (None: not used). vLLM 0.33 registers "qwen3"/"qwen3_coder" as adapters over its Qwen3 parser engine.
FORMATS: dict[str, list[tuple[str, str | None, str | None]]] = {
    "reasoning": [
        ("vllm", "deepseek_r1", None),
        ("vllm", "qwen3", None),
        ("sglang", "qwen3", None),
        ("sglang", "deepseek-r1", None),
    ],
    "hermes": [("vllm", None, "hermes"), ("sglang", None, "qwen25")],
    "qwen3_coder": [("vllm", None, "qwen3_coder"), ("sglang", None, "qwen3_coder")],
    "reasoning+tools": [
        ("vllm", "qwen3", "hermes"),
        ("vllm", "deepseek_r1", "hermes"),
        ("sglang", "qwen3", "qwen25"),
    ],
    "gpt-oss": [("vllm", "openai_gptoss", "openai"), ("sglang", "gpt-oss", "gpt-oss")],
}

unavailable: dict[str, str] = {}  # peer -> why it could not be imported or built


def peer_version(peer: str) -> str:
    try:
        return version(peer)
    except PackageNotFoundError:
        return "not installed"


# --------------------------------------------------------------------------- tokenizers


def write_tiktoken_ranks(tok: toklane.Tokenizer, path: str) -> None:
    """The tokenizer's ordinary tokens as a ``.tiktoken`` rank file (base64 bytes, rank)."""
    added = {t.id for t in tok.added_tokens}
    with open(path, "wb") as f:
        for i, data in enumerate(tok.token_bytes_table):
            if data is not None and i not in added:
                f.write(base64.b64encode(data) + b" " + str(i).encode() + b"\n")


def transformers_tokenizer(tok: toklane.Tokenizer, pattern: str) -> Any:
    """A transformers fast tokenizer built from the same ranks, pre-tokenizer pattern and added tokens."""
    from tokenizers import AddedToken
    from transformers import PreTrainedTokenizerFast
    from transformers.convert_slow_tokenizer import TikTokenConverter

    with tempfile.NamedTemporaryFile("wb", suffix=".tiktoken", delete=False) as f:
        name = f.name
    try:
        write_tiktoken_ranks(tok, name)
        backend = TikTokenConverter(vocab_file=name, pattern=pattern).converted()
    finally:
        os.unlink(name)
    backend.add_tokens([AddedToken(t.content, special=t.special) for t in tok.added_tokens])
    return PreTrainedTokenizerFast(tokenizer_object=backend)


_HARMONY_DIR: list[str] = []


def harmony_vocabulary(tok: toklane.Tokenizer) -> None:
    """Point openai-harmony (used by vLLM and by the harmony benchmark) at o200k ranks written from toklane's
    o200k_harmony (byte-identical to OpenAI's o200k_base file, hash-checked by harmony): no download."""
    if _HARMONY_DIR:
        return
    folder = tempfile.mkdtemp(prefix="toklane-harmony-")
    write_tiktoken_ranks(tok, os.path.join(folder, "o200k_base.tiktoken"))
    os.environ["TIKTOKEN_ENCODINGS_BASE"] = folder
    os.environ["TIKTOKEN_RS_CACHE_DIR"] = folder
    _HARMONY_DIR.append(folder)


# --------------------------------------------------------------------------- vLLM


def _vllm_request(tools: list[dict[str, Any]] | None) -> Any:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    return ChatCompletionRequest(
        model="bench", messages=[{"role": "user", "content": "hi"}], tools=tools, tool_choice="auto" if tools else None
    )


def vllm_parser(
    hf: Any, reasoning: str | None, tools: str | None, schema: list[dict[str, Any]] | None, *, harmony: bool = False
) -> PeerParse:
    """vLLM's serving-layer Parser (``ParserManager.get_parser``), whole output: ``Parser.parse``."""
    logging.getLogger("vllm").setLevel(logging.ERROR)
    from vllm.parser.parser_manager import ParserManager

    cls = ParserManager.get_parser(
        tool_parser_name=tools, reasoning_parser_name=reasoning, enable_auto_tools=tools is not None, is_harmony=harmony
    )
    assert cls is not None
    request = _vllm_request(schema if tools else None)
    # Built once (vLLM builds one per request; its constructor reads the tokenizer's vocabulary, which the
    # construction table measures). Parser.parse keeps no state between outputs (the Harmony parser resets
    # itself in flush()), which benchmarks/parsers.py checks by parsing twice.
    parser = cls(hf, request.tools)

    def parse(text: str, ids: list[int]) -> Parsed:
        r, c, calls = parser.parse(text, request, tools is not None, ids)
        return r, c, [(f.name, f.arguments) for f in calls or ()]

    return parse


# --------------------------------------------------------------------------- SGLang


def sglang_parser(hf: Any, reasoning: str | None, tools: str | None, schema: list[dict[str, Any]] | None) -> PeerParse:
    """SGLang's non-streaming path: ``ReasoningParser.parse_non_stream``, then ``FunctionCallParser.parse_non_stream``
    (the detector's ``detect_and_parse``) on the content. Both built once (SGLang builds them per request; their
    non-streaming calls keep no state between outputs, which benchmarks/parsers.py checks by parsing twice).
    ``force_reasoning=True``: the outputs start inside the reasoning (Qwen3.6's chat template opens ``<think>``
    in the prompt), which SGLang's server passes as ``template_manager.force_reasoning``."""
    logging.getLogger("sglang").setLevel(logging.ERROR)
    from sglang.srt.entrypoints.openai.protocol import Tool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    from sglang.srt.parser.reasoning_parser import ReasoningParser

    sg_tools = [Tool.model_validate(t) for t in schema or ()]
    fcp = FunctionCallParser(sg_tools, tools) if tools else None
    rp = ReasoningParser(reasoning, stream_reasoning=False, force_reasoning=True) if reasoning else None

    def parse(text: str, ids: list[int]) -> Parsed:
        reasoning_text, content = rp.parse_non_stream(text) if rp is not None else (None, text)
        calls: list[tuple[str, str]] = []
        if fcp is not None and content:
            content, items = fcp.parse_non_stream(content)
            calls = [(c.name or "", c.parameters) for c in items]
        return reasoning_text, content, calls

    return parse


# --------------------------------------------------------------------------- all peers for one format


def whole_output_peers(fmt_key: str, hf: Any, schema: list[dict[str, Any]] | None) -> dict[str, PeerParse]:
    """Every installed peer's whole-output parse for ``fmt_key`` (see FORMATS), labelled with its parser names."""
    out: dict[str, PeerParse] = {}
    for peer, reasoning, tools in FORMATS[fmt_key]:
        label = f"{peer} {'+'.join(n for n in (reasoning, tools) if n)}"
        if peer in unavailable:
            continue
        try:
            if peer == "vllm":
                out[label] = vllm_parser(hf, reasoning, tools, schema, harmony=fmt_key == "gpt-oss")
            else:
                out[label] = sglang_parser(hf, reasoning, tools, schema)
        except Exception as e:  # not installed, or an import its environment cannot satisfy
            unavailable[peer] = f"{type(e).__name__}: {e}"
    return out
