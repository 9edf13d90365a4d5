"""Untrusted templates: sandboxed, bounded in work and output, every failure one line naming the line.

The limits are counted (steps, characters built, characters rendered), so these tests assert what
is refused, never how long anything took.
"""

from __future__ import annotations

import pytest

import toklane
from toklane.chat import templates
from toklane.errors import ChatTemplateError

HI = [{"role": "user", "content": "hi"}]


def _render(text: str, messages=HI, **options) -> str:
    return toklane.render_chat(messages, model="deepseek-v4", chat_template=text, **options)


ATTACKS = [
    ("nested loops", "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", "steps"),
    (
        "doubling with +",
        "{% set ns = namespace(s='ab') %}{% for i in range(64) %}{% set ns.s = ns.s + ns.s %}{% endfor %}",
        "characters",
    ),
    (
        "doubling with ~",
        "{% set ns = namespace(s='ab') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}",
        "characters",
    ),
    ("string times a number", "{{ 'a' * 10**12 }}", "'*'"),
    ("list times a number", "{{ ([1] * 10**12)|length }}", "'*'"),
    ("huge power", "{{ 9 ** (9 ** 9) }}", "bits"),
    (
        "growing integer",
        "{% set ns = namespace(x=3) %}{% for i in range(64) %}{% set ns.x = ns.x * ns.x %}{% endfor %}",
        "bits",
    ),
    ("ljust", "{{ 'a'.ljust(10**12) }}", "str.ljust"),
    ("center filter", "{{ 'a'|center(10**12) }}", "center"),
    ("format width", "{{ '{:>999999999999}'.format(1) }}", "format field"),
    ("percent width", "{{ '%999999999999d' % 1 }}", "% format"),
    ("percent star", "{{ '%*d' % (10**9, 1) }}", "'%*'"),
    (
        "replace growth",
        "{% set ns = namespace(s='aaaaaaaaaa') %}{% for i in range(30) %}"
        "{% set ns.s = ns.s|replace('a', 'aaaaaaaaaa') %}{% endfor %}",
        "replace",
    ),
    ("join growth", "{{ range(100000)|join('x' * 100000) }}", "join"),
    ("indent growth", "{{ ('a\n' * 100000)|indent(100000) }}", "indent"),
    ("lipsum", "{{ lipsum(10**9) }}", "lipsum"),
    ("output flood", "{% set s = 'a' * 1000000 %}{% for i in range(100000) %}{{ s }}{% endfor %}", "rendered more"),
    ("recursion", "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "recurses"),
]


@pytest.mark.parametrize("text, expect", [a[1:] for a in ATTACKS], ids=[a[0] for a in ATTACKS])
def test_attacks_are_refused_as_one_line_errors(text, expect):
    with pytest.raises(ChatTemplateError) as err:
        _render(text)
    message = str(err.value)
    assert expect in message and "\n" not in message, message
    assert message.startswith("the chat_template given")


def test_limits_grow_with_the_input():
    """A long conversation renders: the budgets are a base plus a multiple of the inputs' size."""
    long = [{"role": "user", "content": "x" * (templates.BASE_OUTPUT + 10)}]
    assert len(_render("{{ messages[0].content }}", long)) == templates.BASE_OUTPUT + 10
    many = [{"role": "user", "content": "hi"}] * 500
    text = "{% for m in messages %}{% for n in messages %}.{% endfor %}{% endfor %}"
    assert len(_render(text, many)) == 500 * 500


@pytest.mark.parametrize(
    "text, expect",
    [
        ("{{ ''.__class__.__mro__ }}", "sandbox refuses"),
        ("{{ messages.append(1) }}", "sandbox refuses"),
        ("{% set ns = namespace() %}{% set ns._x = 1 %}", "underscore"),
        ("{{ dict.__init__ }}", ""),
    ],
)
def test_the_sandbox_holds(text, expect):
    try:
        out = _render(text)
    except ChatTemplateError as err:
        assert expect in str(err)
    else:  # an attribute the sandbox hides renders as undefined (empty), as in transformers
        assert out == ""


def test_errors_name_the_template_line():
    text = "line one\n{{ raise_exception('No user query found in messages.') }}\n"
    with pytest.raises(ChatTemplateError, match=r"line 2: raised: No user query found in messages\.$"):
        _render(text)
    with pytest.raises(ChatTemplateError, match=r"line 3: has a syntax error"):
        _render("a\nb\n{% if %}")
    with pytest.raises(ChatTemplateError, match=r"line 2: failed: .*"):
        _render("ok\n{{ messages[0].content + 1 }}")
    with pytest.raises(ChatTemplateError) as info:
        _render("{{ x(1) }}")
    assert info.value.line == 1 and info.value.template == "the chat_template given"


def test_template_text_limits():
    with pytest.raises(ChatTemplateError, match="characters long"):
        _render("a" * (templates.MAX_TEMPLATE_CHARS + 1))
    with pytest.raises(ChatTemplateError, match="nests brackets"):
        _render("{{ " + "(" * 100 + "1" + ")" * 100 + " }}")
    with pytest.raises(toklane.InvalidArgumentError, match="chat_template must be a template's text or name"):
        toklane.render_chat(HI, model="deepseek-v4", chat_template=b"{{ 1 }}")  # type: ignore[arg-type]


def test_bad_template_is_not_cached_and_good_ones_are_compiled_once():
    text = "{{ messages|length }} messages"
    first = templates.compile_template(text)
    assert templates.compile_template(text) is first  # (same name: the very object)
    with pytest.raises(ChatTemplateError):
        templates.compile_template("{% for %}")
    with pytest.raises(ChatTemplateError):  # compiled again, fails again
        templates.compile_template("{% for %}")


def test_kwargs_cannot_replace_the_inputs():
    with pytest.raises(ChatTemplateError, match="may not set 'messages'"):
        _render("{{ messages }}", chat_template_kwargs={"messages": []})
    with pytest.raises(toklane.InvalidArgumentError, match="chat_template_kwargs"):
        _render("{{ 1 }}", chat_template_kwargs=["x"])
