"""The ``toklane`` command line: serve, parse, count, tokenize, models, formats, bench.

Errors go to stderr as one line (``toklane: error: ...``) with exit status 2
for bad input or setup, 1 for a failed benchmark, 130 on Ctrl-C.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import glob
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from .errors import ChatTemplateError, ToklaneError
from .release import __version__


class CliError(Exception):
    """A user-facing error: printed without a traceback."""


# --------------------------------------------------------------------------- helpers


def _open(path: str) -> BinaryIO:
    if path == "-":
        return sys.stdin.buffer
    try:
        return open(path, "rb")
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror or exc}") from None


def _display(path: str) -> str:
    return "<stdin>" if path == "-" else path


def _decode_error(path: str, encoding: str, offset: int, exc: UnicodeDecodeError) -> CliError:
    bad = exc.object[exc.start : exc.start + 1].hex() if exc.object else ""
    hint = "pass its encoding with --encoding (e.g. --encoding latin-1) or --errors replace"
    if encoding.replace("_", "-").lower() not in ("utf-8", "utf8"):
        hint = "pass its real encoding with --encoding, or --errors replace"
    return CliError(f"{_display(path)}: not valid {encoding} at byte {offset} (0x{bad}); {hint}")


def _warn_replaced(path: str, encoding: str, offset: int) -> None:
    print(
        f"toklane: warning: {_display(path)}: bytes that are not valid {encoding} (the first at byte {offset}) "
        "were replaced with U+FFFD; pass --encoding to read them",
        file=sys.stderr,
        flush=True,
    )


def _decode(data: bytes, path: str, args: argparse.Namespace) -> str:
    """``data`` as text in ``--encoding``: undecodable bytes are an error naming the file and byte
    offset, or with ``--errors replace`` become U+FFFD after one warning."""
    encoding = getattr(args, "encoding", "utf-8")
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        if getattr(args, "errors", "strict") != "replace":
            raise _decode_error(path, encoding, exc.start, exc) from None
        _warn_replaced(path, encoding, exc.start)
        return data.decode(encoding, errors="replace")


class _StreamDecoder:
    """Incremental ``--encoding`` decoding of a stream, with the same errors as :func:`_decode`."""

    def __init__(self, path: str, args: argparse.Namespace):
        self.path = path
        self.encoding = args.encoding
        self.replace = args.errors == "replace"
        self.decoder = codecs.getincrementaldecoder(self.encoding)()
        self.seen = 0  # bytes given to the decoder so far
        self.warned = False

    def decode(self, data: bytes, final: bool = False) -> str:
        pending = len(self.decoder.getstate()[0])
        try:
            text = self.decoder.decode(data, final)
        except UnicodeDecodeError as exc:
            offset = self.seen - pending + exc.start
            if not self.replace:
                raise _decode_error(self.path, self.encoding, offset, exc) from None
            if not self.warned:
                _warn_replaced(self.path, self.encoding, offset)
                self.warned = True
            self.decoder = _resumed(self.encoding, self.decoder.getstate())
            text = self.decoder.decode(data, final)
        self.seen += len(data)
        return text


def _resumed(encoding: str, state: tuple[bytes, int]) -> codecs.IncrementalDecoder:
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    decoder.setstate(state)
    return decoder


def _check_encoding(args: argparse.Namespace) -> None:
    try:
        info = codecs.lookup(args.encoding)
    except LookupError:
        raise CliError(
            f"unknown encoding {args.encoding!r} for --encoding (e.g. utf-8, latin-1, cp1252, utf-16)"
        ) from None
    if not getattr(info, "_is_text_encoding", True):
        raise CliError(f"{args.encoding!r} is not a text encoding; pass one to --encoding (e.g. utf-8, latin-1)")


def _read_text(path: str, args: argparse.Namespace) -> str:
    f = _open(path)
    try:
        data = f.read()
    finally:
        if f is not sys.stdin.buffer:
            f.close()
    return _decode(data, path, args)


def _print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def _chunks(f: BinaryIO, size: int = 1 << 16) -> Iterator[bytes]:
    """Bytes as they arrive (a pipe yields whatever is ready, not full blocks)."""
    fd = f.fileno()
    while True:
        data = os.read(fd, size)
        if not data:
            return
        yield data


# --------------------------------------------------------------------------- serve


def _check_port(host: str, port: int) -> None:
    """Bind-test ``host:port`` the way uvicorn will bind it, so a taken port fails in
    milliseconds, before any tokenizer is loaded."""
    import errno
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET  # as uvicorn picks it
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: TIME_WAIT is not "in use"
        try:
            sock.bind((host, port))
        except OverflowError:
            raise CliError(f"port {port} is out of range; choose one in 0-65535 with --port") from None
        except socket.gaierror as exc:
            raise CliError(f"cannot resolve --host {host!r} ({exc.strerror or exc})") from None
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise CliError(f"port {port} on {host} is in use; choose another with --port") from None
            if exc.errno == errno.EACCES:
                raise CliError(
                    f"no permission to listen on port {port} on {host}; choose another with --port"
                ) from None
            raise CliError(f"cannot listen on {host}:{port} ({exc.strerror or exc}); check --host and --port") from None


def _cmd_serve(args: argparse.Namespace) -> int:
    from .tokenizer import load_tokenizer

    models = args.model or ["qwen3.6"]
    # The models load on a thread while this one imports the web stack (FastAPI and pydantic):
    # building an encoder releases the GIL, so a server answers its first request that much sooner.
    loaded: dict[str, tuple[Any, float]] = {}

    def preload() -> None:
        for spec in models:
            t0 = time.perf_counter()
            try:
                loaded[spec] = (load_tokenizer(spec), time.perf_counter() - t0)
            except BaseException as exc:  # (raised again below, before the port is bound)
                loaded[spec] = (exc, 0.0)
                return

    # Not a daemon: a daemon thread stopped at exit inside an engine's native build aborts the process.
    loader = threading.Thread(target=preload, name="toklane-preload")
    loader.start()
    import uvicorn

    from .server.app import CONFIG_ENV, create_app
    from .server.limits import Limits
    from .server.protocol import UVICORN_OPTIONS

    limits = {
        "max_body_bytes": int(args.max_body_mb * 1024 * 1024),
        "max_chunks": args.max_chunks,
        "body_timeout": args.body_timeout,
        "header_timeout": args.header_timeout,
        "max_connections": args.max_connections,
        "threads": args.threads,
    }
    try:
        Limits(**limits)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    _check_port(args.host, args.port)
    say = args.log_level in ("info", "debug")
    loader.join()
    for spec in models:
        tok, seconds = loaded[spec]
        if isinstance(tok, BaseException):  # fail before binding the port
            raise tok
        if say:
            print(
                f"toklane: loaded {spec}{'' if spec == tok.name else f' as {tok.name}'} ({len(tok):,} tokens) "
                f"in {seconds:.1f} s",
                file=sys.stderr,
            )
    if say:
        host = f"[{args.host}]" if ":" in args.host else args.host
        others = "; other bundled models load on first use"
        print(
            f"toklane: default model {models[0]}{others}; API docs at http://{host}:{args.port}/docs",
            file=sys.stderr,
            flush=True,
        )
    common = {"host": args.host, "port": args.port, "log_level": args.log_level, **UVICORN_OPTIONS}
    if args.workers > 1:
        os.environ[CONFIG_ENV] = json.dumps({"models": models, **limits})
        uvicorn.run("toklane.server.app:app_from_env", factory=True, workers=args.workers, **common)
    else:
        uvicorn.run(create_app(models, **limits), **common)
    return 0


# --------------------------------------------------------------------------- parse


def _load_schema(path: str | None, args: argparse.Namespace) -> list[dict[str, Any]] | None:
    if path is None:
        return None
    try:
        schema = json.loads(_read_text(path, args))
    except json.JSONDecodeError as exc:
        raise CliError(f"{path}: not JSON ({exc})") from None
    if isinstance(schema, dict) and isinstance(schema.get("tools"), list):
        schema = schema["tools"]
    if not isinstance(schema, list):
        raise CliError(f"{path}: expected a JSON list of tools (OpenAI 'tools' format)")
    return schema


def _ids_stream(chunks: Iterator[bytes]) -> Iterator[list[int]]:
    """Token ids from text like ``[1, 2, 3]`` or ``1 2 3``, as they arrive."""
    pending = b""
    for data in chunks:
        data = pending + data.translate(None, b"[]").replace(b",", b" ")
        cut = max(data.rfind(b" "), data.rfind(b"\n"), data.rfind(b"\t"))
        head, pending = (data[: cut + 1], data[cut + 1 :]) if cut >= 0 else (b"", data)
        yield _ints(head)
    if pending.strip():
        yield _ints(pending)


def _ints(data: bytes) -> list[int]:
    try:
        return [int(x) for x in data.split()]
    except ValueError:
        bad = next(x for x in data.split() if not x.lstrip(b"-").isdigit())
        raise CliError(f"not a token id: {bad.decode(errors='replace')!r}") from None


def _cmd_parse(args: argparse.Namespace) -> int:
    import toklane

    from .wire import result_json

    _check_encoding(args)
    tok = toklane.load_tokenizer(args.model)
    formats = {
        "reasoning": args.reasoning,
        "tools": args.tools,
        "tools_schema": _load_schema(args.tools_schema, args),
        "thinking": args.thinking,
        "unknown_tools": args.unknown_tools,
    }
    f = _open(args.file)
    try:
        if args.stream:
            parser = toklane.get_parser(tok, **formats, stream_arguments=args.stream_arguments)
            if args.ids:
                for ids in _ids_stream(_chunks(f)):
                    if delta := parser.feed(token_ids=ids).to_openai():
                        _print_json(delta)
            else:
                decoder = _StreamDecoder(args.file, args)
                for data in _chunks(f):
                    if delta := parser.feed(text=decoder.decode(data)).to_openai():
                        _print_json(delta)
                if delta := parser.feed(text=decoder.decode(b"", final=True)).to_openai():
                    _print_json(delta)
            if delta := parser.finish().to_openai():
                _print_json(delta)
            return 0
        data = f.read()
    finally:
        if f is not sys.stdin.buffer:
            f.close()
    if args.ids:
        ids = [i for chunk in _ids_stream(iter([data])) for i in chunk]
        result = toklane.parse(tok, token_ids=ids, **formats)
    else:
        result = toklane.parse(tok, text=_decode(data, args.file, args), **formats)
    _print_json(result_json(result))
    return 0


# --------------------------------------------------------------------------- count


def _chat_options(tok: Any, args: argparse.Namespace) -> dict[str, Any]:
    """``count_tokens``'s chat options from --add-generation-prompt, --chat-template,
    --chat-template-kwargs and --tools-schema (read once per run)."""
    options: dict[str, Any] = {"add_generation_prompt": args.add_generation_prompt}
    if args.chat_template is not None:
        options["chat_template"] = _chat_template(tok, args.chat_template, args)
    if args.chat_template_kwargs is not None:
        options["chat_template_kwargs"] = _template_kwargs(args)
    if args.tools_schema is not None:
        options["tools"] = _load_schema(args.tools_schema, args)
    return options


def _template_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """--chat-template-kwargs: a JSON object of template variables."""
    try:
        kwargs = json.loads(args.chat_template_kwargs)
    except json.JSONDecodeError as exc:
        raise CliError(f"--chat-template-kwargs: not JSON ({exc})") from None
    if not isinstance(kwargs, dict):
        raise CliError(
            "--chat-template-kwargs: expected a JSON object of template variables, e.g. '{\"enable_thinking\": false}'"
        )
    return kwargs


def _chat_template(tok: Any, value: str, args: argparse.Namespace) -> str:
    """--chat-template: a template file's text; else the name of one of the tokenizer's named
    templates (``tool_use``), passed on as a name; else template text in one line (as vLLM's
    --chat-template), recognised by its ``{{``/``{%``."""
    if os.path.isfile(value):
        return _read_text(value, args)
    own = tok.chat_template
    if isinstance(own, dict) and value in own:
        return value
    if "{{" in value or "{%" in value:
        return value
    names = f"its named templates: {', '.join(sorted(own))}" if isinstance(own, dict) else "no named templates"
    raise CliError(
        f"--chat-template {value!r}: no such file, and {tok.name!r} has {names} (pass a .jinja file or a name)"
    )


def _chat_flags(args: argparse.Namespace) -> str:
    """The chat options given, as the user typed them ('' when none)."""
    given = [
        flag
        for flag, value in (
            ("--chat-template", args.chat_template),
            ("--chat-template-kwargs", args.chat_template_kwargs),
            ("--tools-schema", args.tools_schema),
        )
        if value is not None
    ]
    return "/".join(given)


def _jsonl_hint(text: str, exc: json.JSONDecodeError) -> str:
    """What to pass instead of --messages when the file is JSON Lines (one record per line)."""
    if not exc.msg.startswith("Extra data"):
        return ""
    try:
        first = json.loads(text[: exc.pos])
    except json.JSONDecodeError:
        return ""
    if not isinstance(first, dict):
        return ""
    fields = [k for k, v in first.items() if isinstance(v, list)] or list(first)
    field = fields[0] if fields else "FIELD"
    return (
        f"; it looks like JSON Lines, one record per line: count each line's message list with "
        f"--messages-field {field} (the corpus counter) or --jsonl-field {field}, not --messages"
    )


def _plural(n: int, word: str) -> str:
    """``1 shard``, ``2 shards``."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def _count_file(tok: Any, path: str, args: argparse.Namespace, progress: Any, chat: dict[str, Any]) -> int:
    from .counting import count_tokens

    text = _read_text(path, args)
    progress.update(len(text.encode()))
    if args.messages:
        try:
            messages = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CliError(f"{path}: not JSON ({exc}){_jsonl_hint(text, exc)}") from None
        options = chat
        if isinstance(messages, dict) and "messages" in messages:
            if messages.get("tools") is not None and "tools" not in chat:  # a saved request's tools
                options = {**chat, "tools": messages["tools"]}
            messages = messages["messages"]
        if not isinstance(messages, list):
            raise CliError(f'{path}: expected a JSON list of messages or {{"messages": [...]}}')
        return count_tokens(messages, tok, **options)
    if args.jsonl_field is None:
        return tok.count(text)
    total = 0
    batch: list[str] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)[args.jsonl_field]
        except json.JSONDecodeError as exc:
            raise CliError(f"{path}:{lineno}: not JSON ({exc})") from None
        except (KeyError, TypeError):
            raise CliError(f"{path}:{lineno}: no field {args.jsonl_field!r}") from None
        if isinstance(value, str):
            batch.append(value)
        elif isinstance(value, list):
            try:
                total += count_tokens(value, tok, **chat)
            except (ValueError, TypeError) as exc:
                raise CliError(f"{path}:{lineno}: {exc}") from None
        else:
            raise CliError(f"{path}:{lineno}: field {args.jsonl_field!r} is neither text nor a message list")
        if len(batch) >= 1024:
            total += sum(map(len, tok.encode_batch(batch)))
            batch = []
    return total + (sum(map(len, tok.encode_batch(batch))) if batch else 0)


def _wants_corpus(args: argparse.Namespace) -> bool:
    """The corpus counter (many records, every core): asked for by its flags, or by folders,
    globs and .parquet inputs that only it reads."""
    flags = (args.text_field, args.messages_field, args.workers, args.max_tokens, args.min_tokens, args.on_error)
    if any(v is not None for v in (*flags, args.ray_address)) or args.engine != "local":
        return True
    return any(
        p != "-"
        and (os.path.isdir(p) or p.lower().endswith(".parquet") or (glob.has_magic(p) and not os.path.exists(p)))
        for p in args.files
    )


def _check_corpus_inputs(args: argparse.Namespace, command: str) -> None:
    if "-" in args.files:
        raise CliError(f"stdin ('-') is not read by the corpus {command}: pass files, folders or globs")


@contextlib.contextmanager
def _corpus_progress(args: argparse.Namespace) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar (bytes read, tokens/s) on a terminal's stderr, as a ``progress`` callback."""
    from tqdm import tqdm

    show = args.progress and sys.stderr.isatty()
    sizes = [_file_size(p) for p in args.files if os.path.isfile(p)]
    known = sizes and not any(p.lower().endswith(".parquet") for p in args.files)  # parquet: decoded bytes
    with tqdm(total=sum(sizes) if known else None, unit="B", unit_scale=True, disable=not show, file=sys.stderr) as bar:
        tokens = [0]

        def progress(nbytes: int, ntokens: int) -> None:
            tokens[0] += ntokens
            elapsed = bar.format_dict.get("elapsed") or 0
            bar.set_postfix_str(f"{tokens[0] / elapsed:,.0f} tokens/s" if elapsed else "", refresh=False)
            bar.update(nbytes)

        yield progress if show else None


def _corpus_arguments(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "text_field": args.text_field,
        "messages_field": args.messages_field,
        "workers": args.workers,
        "max_tokens": args.max_tokens,
        "on_error": args.on_error or "fail",
        "add_generation_prompt": args.add_generation_prompt,
        "engine": args.engine,
        "ray_address": args.ray_address,
        "encoding": args.encoding,  # JSON Lines and text files, per line / file (docs/corpus.md)
        "errors": args.errors,
    }


def _print_corpus_stats(stats: Any) -> None:
    width = max(len(f"{stats.tokens:,}"), len(f"{stats.records:,}"), 7)
    print(f"{'records':>{width}}  {'tokens':>{width}}  file")
    for f in stats.files:
        print(f"{f.records:>{width},}  {f.tokens:>{width},}  {f.path}")
    print(f"{stats.records:>{width},}  {stats.tokens:>{width},}  total")
    print(
        f"tokens per record: min {stats.min:,}  p50 {stats.p50:,}  p90 {stats.p90:,}  "
        f"p99 {stats.p99:,}  max {stats.max:,}"
    )
    if stats.max_tokens is not None:
        print(f"over {stats.max_tokens:,} tokens: {_plural(stats.over_max, 'record')}")
    if stats.under_min is not None:
        print(f"under {stats.min_tokens:,} tokens: {_plural(stats.under_min, 'record')}")
    if stats.errors:
        path, line, reason = stats.errors[0]
        print(f"skipped {_plural(len(stats.errors), 'bad record')} (the first: {path}:{line}: {reason})")


def _load_for_template(model: str) -> Any:
    from .tokenizer import load_tokenizer

    return load_tokenizer(model)


def _cmd_count_corpus(args: argparse.Namespace) -> int:
    from .corpus import count_corpus

    _check_corpus_inputs(args, "counter")
    if args.messages or args.jsonl_field:
        raise CliError(
            "--messages/--jsonl-field do not combine with the corpus flags: use --text-field or --messages-field"
        )
    if args.tools_schema is not None:
        raise CliError("--tools-schema applies to --messages/--jsonl-field counting, not to the corpus counter")
    chat: dict[str, Any] = {}
    if args.chat_template is not None or args.chat_template_kwargs is not None:
        if args.messages_field is None:
            raise CliError(f"{_chat_flags(args)} apply to message lists: add --messages-field FIELD")
        if args.chat_template_kwargs is not None:
            chat["chat_template_kwargs"] = _template_kwargs(args)
        if args.chat_template is not None:
            value = args.chat_template
            # a file or template text needs no tokenizer; a template's name is looked up in the model's own
            plain = os.path.isfile(value) or "{{" in value or "{%" in value
            tok = None if plain else _load_for_template(args.model)
            chat["chat_template"] = _chat_template(tok, value, args)
    with _corpus_progress(args) as progress:
        try:
            stats = count_corpus(
                args.files, args.model, min_tokens=args.min_tokens, progress=progress, **_corpus_arguments(args), **chat
            )
        except ChatTemplateError as exc:  # the template's own error (syntax), before any record: name its file
            if args.chat_template is not None and os.path.isfile(args.chat_template):
                exc = ChatTemplateError(args.chat_template, exc.line, exc.reason)
            raise CliError(str(exc)) from None
    if args.json:
        _print_json(stats.to_json())
    else:
        _print_corpus_stats(stats)
    return 0


def _cmd_count(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from .tokenizer import load_tokenizer

    _check_encoding(args)
    if _wants_corpus(args):
        return _cmd_count_corpus(args)
    if _chat_flags(args) and not (args.messages or args.jsonl_field):
        raise CliError(f"{_chat_flags(args)} apply to message lists: add --messages (or --jsonl-field)")
    tok = load_tokenizer(args.model)
    chat = _chat_options(tok, args)
    sizes = [0 if p == "-" else _file_size(p) for p in args.files]
    show = args.progress and sum(sizes) >= 8 * 1024 * 1024
    results = []
    with tqdm(total=sum(sizes), unit="B", unit_scale=True, disable=not show or None, file=sys.stderr) as progress:
        for path in args.files:
            try:
                results.append({"path": path, "count": _count_file(tok, path, args, progress, chat)})
            except ChatTemplateError as exc:
                given = exc.template == "the chat_template given" and args.chat_template is not None
                if given and os.path.isfile(args.chat_template):  # name the template file
                    exc = ChatTemplateError(args.chat_template, exc.line, exc.reason)
                raise CliError(f"{path}: {exc}") from None
            except (ValueError, TypeError) as exc:
                raise CliError(f"{path}: {exc}") from None
    total = sum(r["count"] for r in results)
    if args.json:
        _print_json({"model": tok.name, "files": results, "total": total})
        return 0
    width = max(len(f"{total:,}"), 5)
    for r in results:
        print(f"{r['count']:>{width},}  {r['path']}")
    if len(results) > 1:
        print(f"{total:>{width},}  total")
    return 0


def _file_size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror or exc}") from None


# --------------------------------------------------------------------------- tokenize


def _cmd_tokenize_corpus(args: argparse.Namespace) -> int:
    from .corpus import tokenize_corpus

    _check_corpus_inputs(args, "tokenizer")
    if args.add_special_tokens or args.split_special_tokens or args.strings:
        raise CliError("--add-special-tokens/--split-special-tokens/--strings are for one text, not with --output")
    with _corpus_progress(args) as progress:
        stats = tokenize_corpus(
            args.files,
            args.output,
            args.model,
            min_tokens=args.min_tokens,
            overwrite=args.overwrite,
            keep_columns=_column_list(args.columns),
            progress=progress,
            **_shard_bytes(args),
            **_corpus_arguments(args),
        )
    for note in stats.notes:
        print(f"toklane: warning: {note}", file=sys.stderr)
    if args.json:
        _print_json(stats.to_json())
        return 0
    _print_corpus_stats(stats)
    resumed = f" ({stats.resumed:,} kept from an earlier run)" if stats.resumed else ""
    print(
        f"wrote {_plural(stats.written, 'record')} to {_plural(len(stats.shards), 'shard')} in {args.output}{resumed}"
    )
    return 0


def _column_list(spec: str | None) -> list[str] | None:
    """``--columns a,b`` as a list (``--columns ''``: none); None without the flag (all)."""
    if spec is None:
        return None
    return [name.strip() for name in spec.split(",") if name.strip()]


def _shard_bytes(args: argparse.Namespace) -> dict[str, int]:
    if args.shard_mb is None:
        return {}
    if not 0 < args.shard_mb < float("inf"):  # NaN too
        raise CliError(f"--shard-mb must be a number of megabytes above 0, not {args.shard_mb}")
    return {"shard_bytes": max(1, round(args.shard_mb * (1 << 20)))}


def _cmd_tokenize(args: argparse.Namespace) -> int:
    from .tokenizer import load_tokenizer

    _check_encoding(args)
    if args.output is not None:
        return _cmd_tokenize_corpus(args)
    corpus_flags = (args.text_field, args.messages_field, args.workers, args.max_tokens, args.min_tokens)
    corpus_flags += (args.on_error, args.shard_mb, args.columns)
    if any(v is not None for v in (*corpus_flags, args.ray_address)) or args.engine != "local" or len(args.files) > 1:
        raise CliError("the corpus tokenizer writes Parquet shards: pass --output DIR")
    tok = load_tokenizer(args.model)
    text = _read_text(args.files[0], args)
    ids = tok.encode(text, add_special_tokens=args.add_special_tokens, split_special_tokens=args.split_special_tokens)
    if args.json:
        out: dict[str, Any] = {"model": tok.name, "tokens": ids, "count": len(ids)}
        if args.strings:
            out["token_strs"] = [tok.id_to_token(i) for i in ids]
        _print_json(out)
    elif args.strings:
        sys.stdout.write("".join(f"{i}\t{json.dumps(tok.id_to_token(i), ensure_ascii=False)}\n" for i in ids))
    else:
        print(" ".join(map(str, ids)))
    return 0


# --------------------------------------------------------------------------- models / formats


def _cmd_models(args: argparse.Namespace) -> int:
    from .tokenizer.registry import bundled_table

    if args.explain is not None:
        return _explain_model(args.explain, args.json)
    rows = []
    for entry in bundled_table():
        row: dict[str, Any] = {
            "name": entry.name,
            "aliases": list(entry.aliases),
            "package": entry.distribution + (f" (extra: toklane[{entry.extra}])" if entry.extra else ""),
            "engine": entry.engine,
            "description": entry.description,
        }
        if args.sizes:  # metadata of the bundled table (checked against the loaded tokenizers by the tests)
            row["vocab_size"] = entry.vocab_size
            row["tokens"] = entry.tokens
            row["special_tokens"] = entry.special_tokens
        rows.append(row)
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    for row in rows:
        size = (
            f"  vocab_size={row['vocab_size']:,} tokens={row['tokens']:,} special={row['special_tokens']:,}"
            if args.sizes
            else ""
        )
        print(f"{row['name']:<16} {row['engine']:<11} {row['package']}{size}")
        print(f"{'':<16} {row['description']}")
        print(f"{'':<16} aliases: {', '.join(row['aliases'])}")
    return 0


def _explain_model(spec: str, as_json: bool) -> int:
    """``toklane models --explain SPEC``: load it and say which engine runs it and why."""
    from . import load_tokenizer

    tok = load_tokenizer(spec)
    row = {"name": tok.name, "source": tok.source, "engine": tok.engine, "reason": tok.engine_reason}
    if as_json:
        print(json.dumps(row, indent=2, ensure_ascii=False))
        return 0
    print(f"{tok.name}: engine {tok.engine} (vocab_size={tok.vocab_size:,}, {len(tok.special_tokens):,} added tokens)")
    print(f"  {tok.engine_reason}")
    return 0


def _cmd_formats(args: argparse.Namespace) -> int:
    from .parsing import format_catalog

    catalog = format_catalog()
    if args.json:
        _print_json(catalog)
        return 0
    for kind, rows in catalog.items():
        print(f"{kind}:")
        for row in rows:
            print(f"  {row['name']:<22} {row['description']}")
            if row["aliases"]:
                print(f"  {'':<22} aliases: {', '.join(row['aliases'])}")
    return 0


# --------------------------------------------------------------------------- bench

BENCHMARKS = ("tokenizer", "parsers", "decode_loop", "service", "corpus")

# What the bench extra installs (pyproject.toml's `bench`): module -> distribution. Everything the
# benchmark scripts import beyond toklane's own dependencies (tests check the two lists agree).
BENCH_MODULES = {
    "rich": "rich",
    "transformers": "transformers",
    "openai_harmony": "openai-harmony",
    "partial_json_parser": "partial-json-parser",
    "torch": "torch",
    "httpx": "httpx",
    "datasets": "datasets",
    "pyarrow": "pyarrow",
}
# Optional modules outside the bench extra -> the extra that installs them.
OPTIONAL_MODULES = {
    "mistral_common": ("mistral-common", "mistral"),
    "torch": ("torch", "torch"),
    "fastapi": ("fastapi", "serve"),
    "starlette": ("fastapi", "serve"),
    "uvicorn": ("uvicorn", "serve"),
    "fastapi_offline": ("fastapi-offline", "serve"),
}


def _install_hint(extra: str) -> str:
    if extra != "bench":
        return f'pip install "toklane[{extra}]"'
    # torch==2.13.0 first: the CPU build (as the README installs it), not the default CUDA wheels
    return 'pip install torch==2.13.0 "toklane[bench]" (in a source checkout: pip install torch==2.13.0 -e ".[bench]")'


def bench_requirements_error() -> str | None:
    """One line naming the bench extra's packages that are not installed, or None when all are.
    Used by `toklane bench` and by benchmarks/_common.py before it imports any of them."""
    import importlib.util

    missing = [dist for module, dist in BENCH_MODULES.items() if importlib.util.find_spec(module) is None]
    if not missing:
        return None
    return f"the benchmarks need {', '.join(missing)}, not installed: {_install_hint('bench')}"


def _missing_module_error(exc: ModuleNotFoundError, command: str | None) -> str | None:
    root = (exc.name or "").partition(".")[0]
    if command == "bench" and root in BENCH_MODULES:
        return f"{BENCH_MODULES[root]} is not installed: {_install_hint('bench')}"
    if root in OPTIONAL_MODULES:
        dist, extra = OPTIONAL_MODULES[root]
        if extra == "serve":
            needs = "the service needs fastapi, uvicorn and fastapi-offline"
            return f"{needs} ({dist} is not installed): {_install_hint(extra)}"
        return f"{dist} is not installed: {_install_hint(extra)}"
    if root in BENCH_MODULES:
        return f"{BENCH_MODULES[root]} is not installed: {_install_hint('bench')}"
    return None


def _benchmarks_dir(explicit: str | None, package: Path | None = None) -> Path:
    """The benchmark scripts' folder: ``--dir``, else ``benchmarks/`` of the source checkout this
    toklane runs from (``package``: its ``toklane`` folder; an editable install's is ``src/toklane``).
    The scripts ship with the source repository, not with the installed package."""
    if explicit:
        folder = Path(explicit)
        if not (folder / "_common.py").is_file():
            raise CliError(
                f"no benchmarks folder at {folder}: --dir names the benchmarks/ folder of a toklane checkout"
            )
        return folder
    root = (package or Path(__file__).resolve().parent).parent.parent
    folder = root / "benchmarks"
    if (root / "pyproject.toml").is_file() and (folder / "_common.py").is_file():
        return folder
    raise CliError(
        "the benchmarks ship with toklane's source repository, not with the installed package: in a "
        "checkout, pip install -e '.[bench]' and run `toklane bench` there (or python benchmarks/<name>.py), "
        "or pass --dir <checkout>/benchmarks"
    )


def _cmd_bench(args: argparse.Namespace) -> int:
    folder = _benchmarks_dir(args.dir)
    names = args.names or [n for n in BENCHMARKS if (folder / f"{n}.py").is_file()]
    unknown = [n for n in names if not (folder / f"{n}.py").is_file()]
    if unknown:
        raise CliError(f"unknown benchmark {', '.join(unknown)}; available: {', '.join(BENCHMARKS)}")
    if (missing := bench_requirements_error()) is not None:
        raise CliError(missing)
    failed = []
    took: list[str] = []
    for name in names:
        cmd = [sys.executable, str(folder / f"{name}.py"), *(["--quick"] if args.quick else [])]
        print(f"$ {' '.join(cmd)}", file=sys.stderr, flush=True)
        start = time.perf_counter()
        if subprocess.run(cmd, check=False).returncode != 0:
            failed.append(name)
        took.append(f"{name} {time.perf_counter() - start:.0f} s")
        print(f"toklane: {name} took {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    if len(names) > 1:
        print(f"toklane: benchmarks took {', '.join(took)}", file=sys.stderr)
    if failed:
        print(f"toklane: benchmarks failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


# --------------------------------------------------------------------------- parser


class _HelpFormatter(argparse.HelpFormatter):
    """Every option that takes a value shows its default: ``(default: X)`` is added unless the
    help already says what the default is (options whose default is computed)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if action.nargs == 0 or "default" in text or action.default in (None, argparse.SUPPRESS):
            return text
        return f"{text} (default: %(default)s)" if text else "default: %(default)s"


def _add_input_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--encoding", default="utf-8", help="text encoding of the input files (e.g. latin-1)")
    command.add_argument(
        "--errors",
        choices=("strict", "replace"),
        default="strict",
        help="input that is not valid in --encoding: stop with an error naming the file and byte (strict), "
        "or replace it with U+FFFD after a warning (replace; corpus jobs: per line, no warning)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toklane",
        description="The token layer for LLM serving: tokenizers, counting, parsers.",
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"toklane {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sub_options = {"formatter_class": _HelpFormatter}

    serve = sub.add_parser("serve", help="run the HTTP service", **sub_options)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: every interface)")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on")
    serve.add_argument(
        "--model",
        action="append",
        metavar="NAME",
        help="tokenizer to preload (repeatable; name, alias or path); the first is the requests' default model "
        "(default: qwen3.6)",
    )
    serve.add_argument("--workers", type=int, default=1, help="worker processes")
    serve.add_argument(
        "--threads",
        type=int,
        default=None,
        help="worker threads per process for CPU work (default: 2 x cores, at least 4)",
    )
    serve.add_argument("--max-body-mb", type=float, default=16.0, help="request body limit in MB (more: 413)")
    serve.add_argument("--max-chunks", type=int, default=65_536, help="chunks per /v1/parse request (more: 413)")
    serve.add_argument(
        "--body-timeout",
        type=float,
        default=30.0,
        help="seconds spent waiting for a request body's bytes, summed over the body (more: 408)",
    )
    serve.add_argument(
        "--header-timeout", type=float, default=10.0, help="seconds to receive request headers (slower: 408)"
    )
    serve.add_argument(
        "--max-connections",
        type=int,
        default=512,
        help="open connections per process; past it a new one replaces the longest-waiting idle, "
        "header-pending or slow-body one, else 503",
    )
    serve.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"], help="log detail"
    )
    serve.set_defaults(func=_cmd_serve)

    parse = sub.add_parser("parse", help="split model output into reasoning, content and tool calls", **sub_options)
    parse.add_argument("file", nargs="?", default="-", help="model output (default: stdin)")
    parse.add_argument("--model", required=True, help="tokenizer name, alias or path")
    parse.add_argument("--reasoning", help="reasoning format (see `toklane formats`; default: none)")
    parse.add_argument("--tools", help="tool-call format (see `toklane formats`; default: none)")
    parse.add_argument(
        "--tools-schema", metavar="FILE", help="JSON file with the OpenAI `tools` list (default: none, any tool)"
    )
    parse.add_argument(
        "--unknown-tools",
        choices=("keep", "drop", "content"),
        default="keep",
        help="a call of a tool the schema does not list: keep it, drop it, or show its text as content",
    )
    parse.add_argument("--stream", action="store_true", help="print deltas as JSON lines as the input is read")
    parse.add_argument("--ids", action="store_true", help="the input is token ids (JSON array or whitespace)")
    parse.add_argument(
        "--thinking",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the output starts inside reasoning (default: the format's; --no-thinking if the prompt closed it)",
    )
    parse.add_argument(
        "--stream-arguments",
        action="store_true",
        help="with --stream: send tool-call argument fragments as they arrive instead of whole calls",
    )
    _add_input_options(parse)
    parse.set_defaults(func=_cmd_parse)

    count = sub.add_parser("count", help="count tokens in files", **sub_options)
    count.add_argument("files", nargs="+", metavar="FILE", help="files to count ('-' for stdin)")
    count.add_argument("--model", required=True, help="tokenizer name, alias or path")
    count.add_argument("--messages", action="store_true", help="each file is a JSON list of chat messages")
    count.add_argument(
        "--jsonl-field",
        metavar="FIELD",
        help="count FIELD of each JSON line (text or messages; default: the whole file)",
    )
    _add_corpus_options(count, "count")
    count.add_argument(
        "--max-tokens",
        type=int,
        metavar="N",
        help="corpus mode: also count the records longer than N tokens (default: none)",
    )
    count.add_argument(
        "--min-tokens",
        type=int,
        metavar="N",
        help="corpus mode: also count the records shorter than N tokens (default: none)",
    )
    count.add_argument("--add-generation-prompt", action="store_true", help="count the assistant prompt too")
    count.add_argument(
        "--chat-template",
        metavar="FILE_OR_NAME",
        help="messages: render with this Jinja template (a .jinja file, one of the tokenizer's named templates "
        "such as tool_use, or template text in one line; default: the tokenizer's own template, else its "
        "family format)",
    )
    count.add_argument(
        "--chat-template-kwargs",
        metavar="JSON",
        help="messages: template variables as a JSON object, e.g. '{\"enable_thinking\": false}' (default: none)",
    )
    count.add_argument(
        "--tools-schema",
        metavar="FILE",
        help="messages: JSON file with the OpenAI `tools` list, rendered into the prompt (default: a "
        '{"messages": ..., "tools": ...} file\'s tools, else none)',
    )
    count.add_argument("--json", action="store_true", help="print JSON")
    count.add_argument("--no-progress", dest="progress", action="store_false", help="never show a progress bar")
    _add_input_options(count)
    count.set_defaults(func=_cmd_count)

    tokenize = sub.add_parser(
        "tokenize", help="print the token ids of a text, or write a corpus's as Parquet shards", **sub_options
    )
    tokenize.add_argument(
        "files",
        nargs="*",
        default=["-"],
        metavar="FILE",
        help="text to tokenize ('-': stdin); with --output: corpus files, folders or globs",
    )
    tokenize.add_argument("--model", required=True, help="tokenizer name, alias or path")
    tokenize.add_argument("--add-special-tokens", action="store_true", help="add the model's BOS/prefix tokens")
    tokenize.add_argument(
        "--split-special-tokens", action="store_true", help="read special-token strings in the text as plain text"
    )
    tokenize.add_argument("--strings", action="store_true", help="show each id's vocabulary string too")
    tokenize.add_argument(
        "--json", action="store_true", help="print JSON {model, tokens, count[, token_strs]} (with --output: the stats)"
    )
    tokenize.add_argument(
        "--output",
        metavar="DIR",
        help="corpus mode: write part-NNNNN.parquet shards (input columns + input_ids + num_tokens) to DIR; "
        "a re-run keeps finished shards (default: none, print one text's ids)",
    )
    _add_corpus_options(tokenize, "tokenize")
    tokenize.add_argument(
        "--max-tokens",
        type=int,
        metavar="N",
        help="corpus mode: leave out records longer than N tokens (default: none)",
    )
    tokenize.add_argument(
        "--min-tokens",
        type=int,
        metavar="N",
        help="corpus mode: leave out records shorter than N tokens (default: none)",
    )
    tokenize.add_argument(
        "--overwrite", action="store_true", help="corpus mode: replace shards of a different job in DIR"
    )
    tokenize.add_argument(
        "--columns",
        metavar="NAMES",
        help="corpus mode: the input columns the shards keep, comma-separated ('' for none: only input_ids and "
        "num_tokens; default: every field of every record)",
    )
    tokenize.add_argument(
        "--shard-mb",
        type=float,
        metavar="MB",
        help="corpus mode: megabytes of input per shard (default: 16; part of the job, so a re-run that "
        "resumes must pass the same)",
    )
    tokenize.add_argument(
        "--add-generation-prompt", action="store_true", help="corpus mode: end each conversation with the prompt"
    )
    tokenize.add_argument("--no-progress", dest="progress", action="store_false", help="never show a progress bar")
    _add_input_options(tokenize)
    tokenize.set_defaults(func=_cmd_tokenize)

    models = sub.add_parser("models", help="list the bundled tokenizers", **sub_options)
    models.add_argument(
        "--sizes",
        action="store_true",
        help="show each tokenizer's id space, token count and special-token count (no loading)",
    )
    models.add_argument(
        "--explain",
        metavar="PATH",
        help="load a tokenizer (a path, or a bundled name) and say which engine runs it and why "
        "(default: none; list the bundled tokenizers)",
    )
    models.add_argument("--json", action="store_true", help="print JSON")
    models.set_defaults(func=_cmd_models)

    formats = sub.add_parser("formats", help="list the parser formats", **sub_options)
    formats.add_argument("--json", action="store_true", help="print JSON")
    formats.set_defaults(func=_cmd_formats)

    bench = sub.add_parser(
        "bench", help="run the benchmarks and print their tables (scripts of a source checkout)", **sub_options
    )
    bench.add_argument(
        "names", nargs="*", metavar="NAME", help=f"benchmarks to run ({', '.join(BENCHMARKS)}; default: all)"
    )
    bench.add_argument("--quick", action="store_true", help="smaller sizes")
    bench.add_argument(
        "--dir", help="the benchmarks/ folder of a toklane checkout (default: the checkout toklane runs from)"
    )
    bench.set_defaults(func=_cmd_bench)
    return parser


def _add_corpus_options(parser: argparse.ArgumentParser, verb: str) -> None:
    """The options ``count`` and ``tokenize`` share in corpus mode."""
    parser.add_argument(
        "--text-field",
        metavar="FIELD",
        help=f"corpus mode: {verb} the text FIELD of each JSON line / parquet row "
        "(FILE may be a folder or a glob; default: none)",
    )
    parser.add_argument(
        "--messages-field",
        metavar="FIELD",
        help=f"corpus mode: {verb} the chat message list FIELD of each JSON line / parquet row (default: none)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="corpus mode: worker processes (default: every core, one per 32 MB of input for less; 1: none)",
    )
    parser.add_argument(
        "--on-error",
        choices=("fail", "skip"),
        help="corpus mode: a malformed line or a record without the field stops with an error (fail) "
        "or is listed and skipped (skip); default: fail",
    )
    parser.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="corpus mode: run on this machine's cores (local) or on Ray (needs toklane[ray])",
    )
    parser.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="corpus mode, --engine ray: the cluster to join (default: start a local Ray)",
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (CliError, ToklaneError) as exc:
        print(f"toklane: error: {exc}", file=sys.stderr)
        return 2
    except (ValueError, TypeError) as exc:  # bad input caught by the library (messages, formats, ids)
        print(f"toklane: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        sys.stderr.close()  # output piped into `head`: nothing to report
        return 0
    except OSError as exc:  # a file the command reads or writes: one line naming it
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"toklane: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:  # an optional dependency: name it and its extra, no traceback
        message = _missing_module_error(exc, getattr(args, "command", None))
        if message is None:
            raise
        print(f"toklane: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
