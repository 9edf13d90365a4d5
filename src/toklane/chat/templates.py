"""Models' own Jinja chat templates, rendered as transformers' ``apply_chat_template`` renders them.

The environment is transformers' (``transformers.utils.chat_template_utils``): jinja2's
``ImmutableSandboxedEnvironment`` with ``trim_blocks`` and ``lstrip_blocks``, the ``loopcontrols``
extension and a ``{% generation %}`` block (rendered as its body), the ``tojson`` filter with
transformers' arguments (``ensure_ascii=False``, ``indent``, ``separators``, ``sort_keys``), and the
globals ``raise_exception``, ``strftime_now``, ``dict`` and a ``namespace`` that refuses
underscore-prefixed names. The inputs are prepared as transformers prepares them (keys whose
value is ``None`` dropped, reasoning aliased, ``continue_final_message`` cut): the same template
and inputs give the same text.

Templates are untrusted (a request may carry one), so beyond jinja2's sandbox every render runs
under a :class:`Budget`:

- the template text is at most :data:`MAX_TEMPLATE_CHARS` characters with brackets nested at most
  :data:`MAX_NESTING` deep (the parser and Python's compiler recurse on them);
- the rendered text is at most ``Budget.output`` characters;
- every string, list or dict an operator, filter, method or call builds is at most that size too,
  checked *before* it is built where its size is known in advance (``'x' * n``, ``ljust(n)``,
  ``'{:>n}'.format``, ``'%*d' %``, ``join``, ``replace``, ``indent``, ``center``, ``lipsum``),
  and all of them together at most ``Budget.work`` characters;
- loop iterations, macro and method calls count as steps, at most ``Budget.steps``; and the
  wall clock, checked every few hundred steps, at most ``Budget.seconds``;
- integers stay under :data:`MAX_INT_BITS` bits (``9 ** 9 ** 9`` is refused before it runs).

A template that breaks a limit, raises (``raise_exception``) or fails (an undefined attribute
called, a type error) raises :class:`toklane.ChatTemplateError`: one line naming the template line.
"""

from __future__ import annotations

import contextvars
import dataclasses
import json
import re
import string
import threading
import time
import traceback
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import wraps
from typing import Any, ClassVar

from ..errors import ChatTemplateError

#: Characters of template text accepted (real templates are 0.5-20 KB).
MAX_TEMPLATE_CHARS = 256 * 1024
#: Nesting of ``( [ {`` in a template (jinja2's parser and Python's compiler recurse on it).
MAX_NESTING = 64
#: Bits of an integer a template may compute.
MAX_INT_BITS = 4096
#: Rendered characters allowed for any input, and per character of the inputs on top.
BASE_OUTPUT = 4 << 20
OUTPUT_PER_INPUT = 4
#: Characters all string operations together may build, per character of allowed output.
WORK_PER_OUTPUT = 16
#: Loop iterations and calls allowed for any input, and per message, tool and document on top.
BASE_STEPS = 1_000_000
STEPS_PER_ITEM = 10_000
#: Wall-clock seconds a render may take (a backstop: the other limits bind first).
SECONDS = 10.0
#: Compiled templates kept by text (templates a request or a caller passes in).
CACHE_SIZE = 64
#: Steps between two looks at the clock.
_CLOCK_EVERY = 256


@dataclass
class Budget:
    """What one render may use (see the module docstring); counters start at zero."""

    output: int = BASE_OUTPUT
    work: int = BASE_OUTPUT * WORK_PER_OUTPUT
    steps: int = BASE_STEPS
    seconds: float = SECONDS
    built: int = 0
    taken: int = 0
    deadline: float = field(default=0.0, repr=False)

    @classmethod
    def for_inputs(cls, chars: int, items: int) -> Budget:
        output = BASE_OUTPUT + OUTPUT_PER_INPUT * chars
        return cls(output=output, work=output * WORK_PER_OUTPUT, steps=BASE_STEPS + STEPS_PER_ITEM * items)


class _OverBudget(Exception):
    """A render broke one of its limits (reported as a ChatTemplateError naming the template line)."""


_budget: contextvars.ContextVar[Budget | None] = contextvars.ContextVar("toklane_template_budget", default=None)


def _step() -> Budget | None:
    b = _budget.get()
    if b is not None:
        b.taken += 1
        if b.taken > b.steps:
            raise _OverBudget(f"took more than {b.steps:,} steps (loop iterations and calls)")
        if not b.taken % _CLOCK_EVERY and time.monotonic() > b.deadline:
            raise _OverBudget(f"ran longer than {b.seconds:g} s")
    return b


def _room(size: int, what: str) -> None:
    """Refuse to build a value of ``size`` characters or items before it is built (outside a render --
    jinja2 folds constant expressions while it compiles -- the limit is :data:`BASE_OUTPUT`)."""
    b = _budget.get()
    limit = BASE_OUTPUT if b is None else b.output
    if size > limit:
        raise _OverBudget(f"{what} would build {size:,} characters or items (at most {limit:,})")


_SIZED = (str, list, tuple, dict)


def _charge(value: Any) -> Any:
    """Count a built value against the budget (strings, lists, dicts: their length; ints: bits)."""
    kind = type(value)
    if kind is str or kind is list or kind is tuple or kind is dict or isinstance(value, _SIZED):
        n = len(value)
        b = _budget.get()
        if b is None:
            if n > BASE_OUTPUT:
                raise _OverBudget(f"built a value of {n:,} characters or items (at most {BASE_OUTPUT:,})")
            return value
        if n > b.output:
            raise _OverBudget(f"built a value of {n:,} characters or items (at most {b.output:,})")
        b.built += n
        if b.built > b.work:
            raise _OverBudget(f"built more than {b.work:,} characters in all")
    elif kind is int and value.bit_length() > MAX_INT_BITS:
        raise _OverBudget(f"computed an integer of more than {MAX_INT_BITS} bits")
    return value


# --------------------------------------------------------------------------- size checks before building

_PERCENT = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?")


def _check_percent(fmt: str) -> None:
    """``fmt % args``: widths and precisions within the budget, none taken from the arguments (``*``)."""
    for m in _PERCENT.finditer(fmt):
        for part in m.groups():
            if part == "*":
                raise _OverBudget("a '%*' format takes its width from the arguments (not allowed)")
            if part is not None:
                _room(int(part), "a % format's width")


_SPEC_NUMBER = re.compile(r"\d+")


def _check_format(fmt: str) -> None:
    """``fmt.format(...)``: the widths in its replacement fields within the budget."""
    try:
        fields = list(string.Formatter().parse(fmt))
    except ValueError:
        return  # str.format raises the same error itself
    for _, _, spec, _ in fields:
        if spec:
            if "{" in spec:
                raise _OverBudget("a format field takes its width from the arguments (not allowed)")
            for number in _SPEC_NUMBER.findall(spec):
                _room(int(number), "a format field's width")


def _widths(args: tuple[Any, ...], kwargs: Mapping[str, Any], what: str) -> None:
    for value in (*args, *kwargs.values()):
        if isinstance(value, int) and not isinstance(value, bool):
            _room(value, what)


def _check_join(items: Any, sep: Any, what: str) -> None:
    if isinstance(sep, str) and hasattr(items, "__len__"):
        _room(len(sep) * len(items), what)


def _check_replace(text: Any, old: Any, new: Any, what: str) -> None:
    if isinstance(text, str) and isinstance(old, str) and isinstance(new, str):
        _room(len(text) + text.count(old) * len(new), what)


def _check_str_method(method: Any, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
    owner = getattr(method, "__self__", None)
    if not isinstance(owner, str):
        return
    name = getattr(method, "__name__", "")
    if name in ("ljust", "rjust", "center", "zfill"):
        _widths(args, kwargs, f"str.{name}")
    elif name == "expandtabs":
        tab = args[0] if args else kwargs.get("tabsize", 8)
        if isinstance(tab, int):
            _room(owner.count("\t") * tab + len(owner), "str.expandtabs")
    elif name == "join" and args:
        _check_join(args[0], owner, "str.join")
    elif name == "replace" and len(args) >= 2:
        _check_replace(owner, args[0], args[1], "str.replace")


# --------------------------------------------------------------------------- the environment


def _raise_exception(message: Any) -> None:
    import jinja2

    raise jinja2.exceptions.TemplateError(message)


def _tojson(
    x: Any, ensure_ascii: bool = False, indent: Any = None, separators: Any = None, sort_keys: bool = False
) -> str:
    # transformers' filter: json.dumps (not jinja2's HTML-escaping one), non-ASCII kept
    if isinstance(indent, int) and not isinstance(indent, bool):
        _room(indent * 64, "tojson's indent")
    elif isinstance(indent, str):
        _room(len(indent) * 64, "tojson's indent")
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def _strftime_now(format: str) -> str:
    return datetime.now().strftime(format)


class _TemplateDict:
    # transformers' `dict` global: a callable that cannot be used to reach dict's class attributes
    def __call__(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        return _charge(dict(*args, **kwargs))

    def fromkeys(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        return _charge(dict.fromkeys(*args, **kwargs))


def _checked_filter(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """A filter that checks sizes before it builds and charges what it built (jinja2's
    ``pass_context`` / ``pass_environment`` markers are kept by ``wraps``)."""

    @wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        first = 1 if getattr(fn, "jinja_pass_arg", None) is not None else 0
        if len(args) > first:
            value, rest = args[first], args[first + 1 :]
            if name == "center":
                _widths(rest, kwargs, "the center filter")
            elif name == "indent":
                width = rest[0] if rest else kwargs.get("width", 4)
                lines = value.count("\n") + 1 if isinstance(value, str) else 1
                unit = len(width) if isinstance(width, str) else width if isinstance(width, int) else 0
                _room(len(str(value)) + lines * unit, "the indent filter")
            elif name == "wordwrap":
                wrap = rest[2] if len(rest) > 2 else kwargs.get("wrapstring")
                if isinstance(wrap, str) and isinstance(value, str):
                    _room(len(value) * (len(wrap) + 1), "the wordwrap filter")
            elif name == "join":
                sep = rest[0] if rest else kwargs.get("d", "")
                if not hasattr(value, "__len__"):
                    value = _charge(list(value))
                    args = (*args[:first], value, *rest)
                _check_join(value, sep, "the join filter")
            elif name == "replace" and len(rest) >= 2:
                _check_replace(value, rest[0], rest[1], "the replace filter")
            elif name == "format" and isinstance(value, str):
                _check_percent(value)
        return _charge(fn(*args, **kwargs))

    return run


def _concat(values: tuple[Any, ...]) -> str:
    """``a ~ b ~ ...``: the values as text, joined; the result counted (its size known before joining)."""
    parts = [v if type(v) is str else str(v) for v in values]
    _room(sum(map(len, parts)), "'~'")
    return _charge("".join(parts))


def _lipsum(n: int = 5, html: bool = True, min: int = 20, max: int = 100) -> str:
    import jinja2.utils

    _room(n * max * 12, "lipsum")
    return _charge(jinja2.utils.generate_lorem_ipsum(n, html, min, max))


def _make_environment() -> Any:
    import operator

    import jinja2
    import jinja2.ext
    import jinja2.nodes
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class Generation(jinja2.ext.Extension):
        """transformers' ``{% generation %}…{% endgeneration %}`` block: marks assistant text; renders its body."""

        tags: ClassVar[set[str]] = {"generation"}

        def parse(self, parser: Any) -> Any:
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            return jinja2.nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(lineno)

        def _body(self, caller: Any) -> str:
            return caller()

    class Namespace(jinja2.utils.Namespace):
        # transformers' namespace: no underscore-prefixed attributes (CPython internals)
        def __init__(*args: Any, **kwargs: Any) -> None:
            self, args = args[0], args[1:]
            attrs = dict(*args, **kwargs)
            for name in attrs:
                Namespace._check_name(name)
            jinja2.utils.Namespace.__init__(self, attrs)

        def __setitem__(self, name: str, value: Any) -> None:
            Namespace._check_name(name)
            jinja2.utils.Namespace.__setitem__(self, name, value)

        @staticmethod
        def _check_name(name: Any) -> None:
            if isinstance(name, str) and name.startswith("_"):
                raise jinja2.exceptions.SecurityError(
                    f"Chat templates cannot store underscore-prefixed attributes on a namespace, but got {name!r}. "
                    "Please rename the attribute."
                )

    class Sandbox(ImmutableSandboxedEnvironment):
        intercepted_binops = frozenset(("+", "-", "*", "/", "//", "%", "**"))

        def call_binop(self, context: Any, op: str, left: Any, right: Any) -> Any:
            # (no step: straight-line code between two loop steps is bounded by the template's length)
            if op == "+" and type(left) is str and type(right) is str:  # the common case: joining text
                return _charge(left + right)
            if op == "*":
                for seq, n in ((left, right), (right, left)):
                    if isinstance(seq, (str, list, tuple)) and isinstance(n, int):
                        _room(len(seq) * n, "'*'")
            elif op == "**" and isinstance(left, int) and isinstance(right, int) and right > 0:
                if max(abs(left), 2).bit_length() * right > MAX_INT_BITS * 2:
                    raise _OverBudget(f"computed an integer of more than {MAX_INT_BITS} bits")
            elif op == "%" and isinstance(left, str):
                _check_percent(left)
            return _charge(self.binop_table[op](left, right))

        def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
            if args and type(getattr(__obj, "__self__", None)) is str:
                _check_str_method(__obj, args, kwargs)
            return _charge(super().call(__context, __obj, *args, **kwargs))

        def wrap_str_format(self, value: Any) -> Any:
            wrapped = super().wrap_str_format(value)
            if wrapped is None:
                return None
            owner = value.__self__

            def checked(*args: Any, **kwargs: Any) -> str:
                _check_format(owner)
                return wrapped(*args, **kwargs)

            return checked

    from jinja2.compiler import CodeGenerator

    class Generator(CodeGenerator):
        """jinja2's code generator, with ``a ~ b`` joined by a function that counts what it builds
        (the sandbox cannot intercept ``~``, and doubling a string with it grows without bound)."""

        def visit_Concat(self, node: Any, frame: Any) -> None:
            self.write("environment.toklane_concat((")
            for arg in node.nodes:
                self.visit(arg, frame)
                self.write(", ")
            self.write("))")

    Sandbox.code_generator_class = Generator
    env = Sandbox(trim_blocks=True, lstrip_blocks=True, extensions=[Generation, jinja2.ext.loopcontrols])
    env.toklane_concat = _concat
    env.filters = {name: _checked_filter(name, fn) for name, fn in env.filters.items()}
    env.filters["tojson"] = _checked_filter("tojson", _tojson)
    env.globals.update(
        raise_exception=_raise_exception,
        strftime_now=_strftime_now,
        dict=_TemplateDict(),
        namespace=Namespace,
        lipsum=_lipsum,
    )
    env.filters[_STEP] = _step_filter
    del operator
    return env


_env: Any = None
_env_lock = threading.Lock()


def _environment() -> Any:
    global _env
    if _env is None:
        with _env_lock:
            if _env is None:
                _env = _make_environment()
    return _env


#: The filter a step runs as: a direct call in the compiled template (a global function would go
#: through the sandbox's call checks), marked ``pass_context`` so that jinja2 never folds it away.
_STEP = "__toklane_step"


def _step_filter(context: Any, value: Any) -> None:
    _step()


def _add_steps(node: Any) -> None:
    """Put a step at the top of every loop body and macro (so any run of iterations or calls counts)."""
    import jinja2
    from jinja2 import nodes

    if getattr(_step_filter, "jinja_pass_arg", None) is None:
        jinja2.pass_context(_step_filter)

    def step(lineno: int) -> Any:
        return nodes.ExprStmt(nodes.Filter(nodes.Const(None), _STEP, [], [], None, None)).set_lineno(lineno)

    for n in node.find_all((nodes.For, nodes.Macro, nodes.CallBlock)):
        n.body.insert(0, step(n.lineno))


def _check_text(text: str, name: str) -> None:
    if len(text) > MAX_TEMPLATE_CHARS:
        raise ChatTemplateError(
            name, None, f"is {len(text):,} characters long; templates of at most {MAX_TEMPLATE_CHARS:,} are read"
        )
    depth = deepest = 0
    line = 1
    for ch in text:
        if ch in "([{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_NESTING:
                    raise ChatTemplateError(name, line, f"nests brackets more than {MAX_NESTING} deep")
        elif ch in ")]}":
            depth = max(depth - 1, 0)
        elif ch == "\n":
            line += 1


class CompiledTemplate:
    """One chat template, compiled once (see :func:`compile_template`)."""

    __slots__ = ("__weakref__", "_template", "name", "text")

    def __init__(self, text: str, name: str, template: Any):
        self.text = text
        self.name = name
        self._template = template

    def render(self, context: dict[str, Any], budget: Budget) -> str:
        """The template rendered with ``context``, within ``budget`` (which it fills in)."""
        budget.deadline = time.monotonic() + budget.seconds
        token = _budget.set(budget)
        try:
            parts: list[str] = []
            size = 0
            for chunk in self._template.generate(**context):
                size += len(chunk)
                if size > budget.output:
                    raise _OverBudget(f"rendered more than {budget.output:,} characters")
                parts.append(chunk)
            return "".join(parts)
        except ChatTemplateError:
            raise
        except Exception as exc:
            raise _as_error(exc, self.name) from None
        finally:
            _budget.reset(token)


#: The file name compiled templates run under (their frames in a traceback carry template lines).
_FILENAME = "<chat template>"


def _template_line(exc: BaseException) -> int | None:
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == _FILENAME:
            line = frame.lineno
    return line


def _as_error(exc: BaseException, name: str) -> ChatTemplateError:
    import jinja2

    line = getattr(exc, "lineno", None) if isinstance(exc, jinja2.TemplateSyntaxError) else None
    if line is None:
        line = _template_line(exc)
    if isinstance(exc, _OverBudget):
        return ChatTemplateError(name, line, f"exceeds the template limits: it {exc}")
    if isinstance(exc, RecursionError):
        return ChatTemplateError(name, line, "recurses too deeply")
    if isinstance(exc, MemoryError):
        return ChatTemplateError(name, line, "ran out of memory")
    if isinstance(exc, jinja2.TemplateSyntaxError):
        return ChatTemplateError(name, line, f"has a syntax error: {exc.message}")
    if isinstance(exc, jinja2.exceptions.SecurityError):
        return ChatTemplateError(name, line, f"did something the sandbox refuses: {exc}")
    if type(exc) is jinja2.TemplateError:  # raise_exception(...)
        return ChatTemplateError(name, line, f"raised: {exc}")
    return ChatTemplateError(name, line, f"failed: {type(exc).__name__}: {exc}")


def _compile(text: str, name: str) -> CompiledTemplate:
    _check_text(text, name)
    env = _environment()
    try:
        tree = env.parse(text, _FILENAME, _FILENAME)
        _add_steps(tree)
        code = env.compile(tree, _FILENAME, _FILENAME)
        template = env.template_class.from_code(env, code, env.make_globals(None), None)
    except ChatTemplateError:
        raise
    except Exception as exc:
        raise _as_error(exc, name) from None
    return CompiledTemplate(text, name, template)


class _Compiled:
    """Compiled templates by text: a bounded LRU (texts come from users), each compiled once at a time."""

    def __init__(self, size: int):
        self._size = size
        self._lru: OrderedDict[str, CompiledTemplate] = OrderedDict()
        self._lock = threading.Lock()
        self._flights: dict[str, threading.Lock] = {}

    def get(self, text: str, name: str) -> CompiledTemplate:
        with self._lock:
            found = self._lru.get(text)
            if found is not None:
                self._lru.move_to_end(text)
                return found
            flight = self._flights.setdefault(text, threading.Lock())
        with flight:
            with self._lock:
                found = self._lru.get(text)
            if found is None:
                try:
                    found = _compile(text, name)  # a failure is not cached: the next call compiles again
                finally:
                    with self._lock:
                        self._flights.pop(text, None)
                with self._lock:
                    self._lru[text] = found
                    while len(self._lru) > self._size:
                        self._lru.popitem(last=False)
        if found.name != name:
            found = CompiledTemplate(found.text, name, found._template)
        return found

    def clear(self) -> None:
        with self._lock:
            self._lru.clear()


_compiled = _Compiled(CACHE_SIZE)


def compile_template(text: Any, name: str = "chat template") -> CompiledTemplate:
    """``text`` compiled (once: compiled templates are kept, the last :data:`CACHE_SIZE` by text).
    ``name`` is how errors call it (``chat template of tokenizer 'x'``)."""
    if not isinstance(text, str):
        raise ChatTemplateError(name, None, f"must be a string of Jinja text, got {type(text).__name__}")
    return _compiled.get(text, name)


# --------------------------------------------------------------------------- inputs, as transformers prepares them

#: Names a message's reasoning is passed under; templates read the first (gpt-oss's read ``thinking``).
REASONING_FIELDS = ("reasoning_content", "thinking", "reasoning")
_CONTINUE_TAG = "CONTINUE_FINAL_MESSAGE_TAG "


def plain(value: Any) -> Any:
    """``value`` rebuilt from plain JSON types (transformers' ``_plain_template_data``): templates see
    no object with methods of its own; anything else becomes ``"<TypeName>"``."""
    if value is None or type(value) in (str, int, float, bool):
        return value
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, Mapping):
        return {plain(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    if type(value).__module__ == "numpy" and type(value).__name__ != "ndarray" and hasattr(value, "item"):
        return plain(value.item())  # numpy scalars (np.bool_(False) would be a truthy placeholder)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return plain(dump())
    return f"<{type(value).__name__}>"


def _messages(messages: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Messages as transformers passes them: ``None`` values dropped, plain data, reasoning aliased."""
    out = []
    for m in messages:
        msg = plain({k: v for k, v in m.items() if v is not None})
        reasoning = next((msg[k] for k in REASONING_FIELDS if msg.get(k) is not None), None)
        if reasoning is not None:
            msg = {"thinking": reasoning, **msg, "reasoning_content": reasoning}
        out.append(msg)
    return out


def _input_size(value: Any) -> int:
    size = 0
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            size += len(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
            size += len(v)
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
            size += len(v)
        else:
            size += 1
    return size


def render_template(
    template: CompiledTemplate,
    messages: list[Mapping[str, Any]],
    *,
    tools: Any = None,
    documents: Any = None,
    add_generation_prompt: bool = False,
    continue_final_message: bool | str = False,
    special_tokens: Mapping[str, str] | None = None,
    kwargs: Mapping[str, Any] | None = None,
) -> str:
    """The prompt ``template`` renders, exactly as transformers' ``apply_chat_template(...,
    tokenize=False)`` with the tokenizer's ``special_tokens_map`` (``bos_token``, ``eos_token``...)
    and ``kwargs`` as template variables (``kwargs`` win over the special tokens)."""
    if continue_final_message and add_generation_prompt:
        raise ChatTemplateError(
            template.name,
            None,
            "cannot render continue_final_message together with add_generation_prompt (set one of them)",
        )
    chat = _messages(messages)
    tools = plain(list(tools)) if tools is not None else None
    documents = plain(list(documents)) if documents is not None else None
    extra = plain(dict(kwargs or {}))
    final_text = None
    if continue_final_message:
        final_text = _tag_final_message(chat, continue_final_message, template)
    context = {
        **dict(special_tokens or {}),
        **extra,
        "messages": chat,
        "tools": tools,
        "documents": documents,
        "add_generation_prompt": add_generation_prompt,
    }
    for key in ("messages", "tools", "documents", "add_generation_prompt"):
        if key in extra:  # transformers passes these by name: a kwarg of the same name is an error there
            raise ChatTemplateError(template.name, None, f"chat_template_kwargs may not set {key!r}")
    size = _input_size([chat, tools, documents, extra])
    budget = Budget.for_inputs(size, len(chat) + len(tools or ()) + len(documents or ()))
    rendered = template.render(context, budget)
    if final_text is not None:
        rendered = _cut_after_final(rendered, final_text, template)
    return rendered


def _tag_final_message(chat: list[dict[str, Any]], field_: bool | str, template: CompiledTemplate) -> str:
    """Mark the final message's text so the render can be cut right after it (transformers' way)."""
    name = field_ if isinstance(field_, str) else "content"
    if not chat:
        raise ChatTemplateError(template.name, None, "continue_final_message needs at least one message")
    final = chat[-1].get(name)
    if final is None:
        raise ChatTemplateError(
            template.name, None, f'continue_final_message: the final message has no "{name}" to continue'
        )
    fields = [name]
    if name in REASONING_FIELDS:
        fields = [f for f in REASONING_FIELDS if chat[-1].get(f) == final]
    if not any(f in template.text for f in fields):
        raise ChatTemplateError(
            template.name, None, f'continue_final_message: "{name}" is not a field the template reads'
        )
    if isinstance(final, (list, tuple)):
        for block in reversed(final):
            if isinstance(block, dict) and "text" in block:
                text = block["text"]
                block["text"] = f"{text}{_CONTINUE_TAG}"
                return str(text)
        raise ChatTemplateError(
            template.name, None, "continue_final_message: the final message has no text part to continue"
        )
    for f in fields:
        chat[-1][f] = f"{chat[-1][f]}{_CONTINUE_TAG}"
    return str(final)


def _cut_after_final(rendered: str, final: str, template: CompiledTemplate) -> str:
    tag = _CONTINUE_TAG.strip()
    if final.strip() not in rendered or tag not in rendered:
        raise ChatTemplateError(
            template.name,
            None,
            "continue_final_message: the template drops part of the final message, so it cannot be continued",
        )
    at = rendered.rindex(tag)
    if rendered[at : at + len(_CONTINUE_TAG)] == _CONTINUE_TAG:
        return rendered[:at]
    return rendered[:at].rstrip()


def clear_cache() -> None:
    """Forget the compiled templates kept by text (tests)."""
    _compiled.clear()


__all__ = [
    "BASE_OUTPUT",
    "MAX_NESTING",
    "MAX_TEMPLATE_CHARS",
    "REASONING_FIELDS",
    "Budget",
    "CompiledTemplate",
    "compile_template",
    "plain",
    "render_template",
]
