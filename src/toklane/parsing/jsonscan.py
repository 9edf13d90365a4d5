"""Incremental, validating JSON scanner: one value, any chunking, linear time.

The scanner keeps an explicit stack (no recursion, so nesting depth is bounded
only by memory) and a small state; each chunk is read once. It validates
RFC 8259 strictly -- what it accepts, ``json.loads`` accepts -- and stops at
the first character that cannot continue a valid value, so the text it has
passed over is always a valid JSON *prefix*. That is what lets a parser
stream a tool call's arguments fragment by fragment and know, the moment the
model goes wrong, exactly where.

Runs of plain string characters, whitespace and digits are skipped with
single-character-class regexes (each character examined once, no
alternation, so no backtracking); everything else is a small per-character
state machine.
"""

from __future__ import annotations

import re
from json.decoder import JSONDecoder, scanstring

from ..switches import pure_python

# States.
VALUE = 0  # a value must start here
ARRAY_FIRST = 1  # after '[': a value or ']'
OBJECT_FIRST = 2  # after '{': a key or '}'
KEY = 3  # after ',' in an object: a key
COLON = 4  # after a key: ':'
AFTER = 5  # after a value inside a container: ',' or the closing bracket
STRING = 6  # inside a string
ESCAPE = 7  # after a backslash in a string
UNICODE = 8  # inside \\uXXXX (``_aux`` hex digits left)
NUMBER = 9  # inside a number (``_aux`` is the number sub-state)
LITERAL = 10  # inside true / false / null (``_lit`` is what is left to read)
DONE = 11  # the value is complete
ERROR = 12  # the text cannot be JSON

# Number sub-states.
_N_MINUS, _N_ZERO, _N_INT, _N_DOT, _N_FRAC, _N_E, _N_ESIGN, _N_EXP = range(8)
_N_COMPLETE = frozenset((_N_ZERO, _N_INT, _N_FRAC, _N_EXP))

# Plain characters and complete escapes of a string body. The quantifier is possessive (Python 3.11+):
# the alternatives start with different characters and nothing is ever given back, so each character
# is examined once -- no backtracking on model output.
_STRING_RUN = re.compile(r'(?:[^"\\\x00-\x1f]++|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})++')
#: Characters left in a chunk from which a string is read by the C string scanner (when a quote follows).
LONG = 32


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


#: The C decoder's value reader (``scan_value(s, i) -> (value, end)``), refusing NaN/Infinity as the scanner does.
scan_value = JSONDecoder(parse_constant=_no_constant).scan_once


def _value_end(s: str, i: int) -> int:
    """:func:`value_end` by the C decoder, which builds the value (stricter than the scanner only
    where a value is nested past Python's recursion limit or holds an integer past its digit limit)."""
    try:
        return scan_value(s, i)[1]  # type: ignore[no-any-return]
    except StopIteration as e:
        return -1 - (e.value if isinstance(e.value, int) else len(s))
    except ValueError as e:
        return -1 - getattr(e, "pos", len(s))
    except RecursionError:
        return -1 - len(s)


def _string_end(s: str, i: int) -> int:
    """:func:`string_end` by the C decoder, which builds the string."""
    try:
        return scanstring(s, i)[1]  # type: ignore[no-any-return]
    except ValueError as e:
        return -1 - getattr(e, "pos", len(s))


# value_end(s, i): where the JSON value that starts at s[i] ends (just past it) if it is complete and
# valid, else -1 - k, k where the reading stopped (the first character that cannot continue a valid
# value, or len(s)). string_end(s, i): the same for a string whose body starts at s[i]. Compiled
# (toklane._json: checked in place, nothing built; valid is what JsonScanner accepts), else json's C
# decoder.
try:
    if pure_python():
        raise ImportError("TOKLANE_PURE_PYTHON is set")
    from .._json import string_end, value_end
except ImportError:
    value_end, string_end = _value_end, _string_end

#: Whether :func:`value_end` and :func:`string_end` are the compiled check (``toklane._json``).
NATIVE = value_end is not _value_end

_WS_RUN = re.compile(r"[ \t\n\r]+")
_DIGIT_RUN = re.compile(r"[0-9]+")
_WS = " \t\n\r"
_HEX = frozenset("0123456789abcdefABCDEF")
_ESCAPES = frozenset('"\\/bfnrt')
_LITERALS = {"t": "rue", "f": "alse", "n": "ull"}


class JsonScanner:
    """Scans one JSON value from a stream of chunks.

    :meth:`scan` consumes text and returns where it stopped: the end of the
    chunk (more is needed), just past the value (``done``), or at the first
    invalid character (``failed``). A number at the very end of the stream is
    only known to be complete at :meth:`close`.

    ``depth`` is the current nesting depth; ``in_key`` tells whether the
    current string is an object key. Callers that need to see structure (a
    tool call's ``"name"`` and ``"arguments"`` members) read those between
    calls to :meth:`scan` with ``stop_depth``.
    """

    __slots__ = ("_aux", "_lit", "_stack", "in_key", "state")

    def __init__(self) -> None:
        self.state = VALUE
        self._stack: list[bool] = []  # True: object, False: array
        self._aux = 0
        self._lit = ""
        self.in_key = False

    @property
    def done(self) -> bool:
        return self.state == DONE

    @property
    def failed(self) -> bool:
        return self.state == ERROR

    @property
    def depth(self) -> int:
        return len(self._stack)

    @property
    def started(self) -> bool:
        """True once the value's first character has been read."""
        return self.state != VALUE or bool(self._stack)

    def close(self) -> bool:
        """End of input: complete a trailing top-level number; True if the value is complete."""
        if self.state == NUMBER and not self._stack and self._aux in _N_COMPLETE:
            self.state = DONE
        return self.state == DONE

    def plain(self, s: str) -> bool:
        """True if all of ``s`` continues the current string with plain characters (it may then be
        passed over without scanning: the fast path for a long string value streamed token by token)."""
        if self.state != STRING:
            return False
        # Most tokens of a string value hold no quote, backslash or control character (all of which
        # str.isprintable refuses): checked at C speed; the pattern reads the rest (escapes, or
        # printable-refused characters such as U+00A0, which are plain too).
        if s and '"' not in s and "\\" not in s and s.isprintable():
            return True
        return _STRING_RUN.fullmatch(s) is not None

    def scan(self, s: str, i: int = 0, stop_depth: int = -1) -> int:
        """Advance over ``s[i:]``; return the index where scanning stopped.

        With ``stop_depth >= 0`` the scan also stops right after a string
        (key or value) closes or a container opens or closes at that depth or
        shallower -- so a caller can watch a container's members.
        """
        n = len(s)
        state = self.state
        fail = 0  # value_end refused a container here: openers before it are left to the machine
        stack = self._stack
        while i < n:
            if state == STRING:
                if n - i >= LONG and s.find('"', i) >= 0:
                    # A long span holding a quote: string_end checks exactly what the run below
                    # does (plain characters, complete escapes) and finds the closing quote; where it
                    # fails (an invalid character or escape, no closing quote) the run finds where.
                    end = string_end(s, i)
                    if end >= 0:
                        i = end
                        state = COLON if self.in_key else AFTER if stack else DONE
                        if state == DONE or len(stack) <= stop_depth:
                            self.state = state
                            return i
                        continue
                m = _STRING_RUN.match(s, i)
                if m is not None:
                    i = m.end()
                    if i == n:
                        break
                c = s[i]
                i += 1
                if c == '"':
                    state = COLON if self.in_key else AFTER if stack else DONE
                    if state == DONE or len(stack) <= stop_depth:
                        self.state = state
                        return i
                elif c == "\\":
                    state = ESCAPE
                else:  # a raw control character
                    self.state = ERROR
                    return i - 1
            elif state in (AFTER, COLON):
                c = s[i]
                if c in _WS:
                    m = _WS_RUN.match(s, i)
                    i = m.end()  # type: ignore[union-attr]
                    continue
                if state == COLON:
                    if c != ":":
                        self.state = ERROR
                        return i
                    state = VALUE
                    i += 1
                    continue
                top = stack[-1]
                if c == ",":
                    state = KEY if top else VALUE
                    i += 1
                elif c == ("}" if top else "]"):
                    stack.pop()
                    i += 1
                    state = AFTER if stack else DONE
                    if state == DONE or len(stack) <= stop_depth:
                        self.state = state
                        return i
                else:
                    self.state = ERROR
                    return i
            elif state <= KEY:  # VALUE, ARRAY_FIRST, OBJECT_FIRST, KEY
                if (
                    state in (OBJECT_FIRST, ARRAY_FIRST)
                    and len(stack) > stop_depth
                    and n - i >= LONG
                    and i > fail
                    and s[i - 1] in "{["
                ):
                    # A container just opened, with no stop inside it: value_end reads it whole if
                    # it is complete and valid here (else the machine below finds where it is not).
                    # After a refusal no container opened before the point it reached is tried again
                    # (nested unclosed openers would otherwise be re-read: quadratic).
                    end = value_end(s, i - 1)
                    if end < 0:
                        fail = -1 - end
                    else:
                        i = end
                        stack.pop()
                        state = AFTER if stack else DONE
                        if state == DONE or len(stack) <= stop_depth:
                            self.state = state
                            return i
                        continue
                c = s[i]
                if c in _WS:
                    m = _WS_RUN.match(s, i)
                    i = m.end()  # type: ignore[union-attr]
                    continue
                if (c == "}" and state == OBJECT_FIRST) or (c == "]" and state == ARRAY_FIRST):
                    state = AFTER  # an empty container: AFTER closes it
                    continue
                if state in (OBJECT_FIRST, KEY):
                    if c != '"':
                        self.state = ERROR
                        return i
                    state = STRING
                    self.in_key = True
                    i += 1
                    continue
                i += 1
                if c == '"':
                    state = STRING
                    self.in_key = False
                elif c == "{":
                    stack.append(True)
                    state = OBJECT_FIRST
                    if len(stack) - 1 <= stop_depth:
                        self.state = state
                        return i
                elif c == "[":
                    stack.append(False)
                    state = ARRAY_FIRST
                    if len(stack) - 1 <= stop_depth:
                        self.state = state
                        return i
                elif c == "-":
                    state = NUMBER
                    self._aux = _N_MINUS
                elif c == "0":
                    state = NUMBER
                    self._aux = _N_ZERO
                elif "1" <= c <= "9":
                    state = NUMBER
                    self._aux = _N_INT
                elif c in _LITERALS:
                    state = LITERAL
                    self._lit = _LITERALS[c]
                else:
                    self.state = ERROR
                    return i - 1
            elif state == ESCAPE:
                c = s[i]
                if c in _ESCAPES:
                    state = STRING
                elif c == "u":
                    state = UNICODE
                    self._aux = 4
                else:
                    self.state = ERROR
                    return i
                i += 1
            elif state == UNICODE:
                if s[i] not in _HEX:
                    self.state = ERROR
                    return i
                i += 1
                self._aux -= 1
                if self._aux == 0:
                    state = STRING
            elif state == NUMBER:
                sub = self._aux
                c = s[i]
                if sub in (_N_INT, _N_FRAC, _N_EXP):
                    m = _DIGIT_RUN.match(s, i)
                    if m is not None:
                        i = m.end()
                        continue
                    if sub == _N_INT and c == ".":
                        self._aux = _N_DOT
                        i += 1
                        continue
                    if sub != _N_EXP and c in "eE":
                        self._aux = _N_E
                        i += 1
                        continue
                elif sub == _N_ZERO:
                    if c == ".":
                        self._aux = _N_DOT
                        i += 1
                        continue
                    if c in "eE":
                        self._aux = _N_E
                        i += 1
                        continue
                elif sub == _N_MINUS:
                    if c == "0":
                        self._aux = _N_ZERO
                    elif "1" <= c <= "9":
                        self._aux = _N_INT
                    else:
                        self.state = ERROR
                        return i
                    i += 1
                    continue
                elif sub in (_N_DOT, _N_ESIGN):
                    if not "0" <= c <= "9":
                        self.state = ERROR
                        return i
                    self._aux = _N_FRAC if sub == _N_DOT else _N_EXP
                    i += 1
                    continue
                elif sub == _N_E:
                    if c in "+-":
                        self._aux = _N_ESIGN
                    elif "0" <= c <= "9":
                        self._aux = _N_EXP
                    else:
                        self.state = ERROR
                        return i
                    i += 1
                    continue
                # The number ended just before c (c is not consumed).
                if sub not in _N_COMPLETE or not stack:
                    # A top-level number followed by more text is still a complete value.
                    if sub in _N_COMPLETE:
                        self.state = DONE
                        return i
                    self.state = ERROR
                    return i
                state = AFTER
                if len(stack) <= stop_depth:
                    self.state = state
                    return i
            elif state == LITERAL:
                rest = self._lit
                k = min(len(rest), n - i)
                if s[i : i + k] != rest[:k]:
                    # Find the exact offending character.
                    j = 0
                    while s[i + j] == rest[j]:
                        j += 1
                    self.state = ERROR
                    return i + j
                i += k
                if k < len(rest):
                    self._lit = rest[k:]
                    break
                state = AFTER if stack else DONE
                if state == DONE or len(stack) <= stop_depth:
                    self.state = state
                    return i
            else:  # DONE or ERROR: nothing more is consumed
                self.state = state
                return i
        self.state = state
        return i


def is_json(text: str) -> bool:
    """True if ``text`` is exactly one JSON value (surrounding whitespace allowed)."""
    if not NATIVE:
        scanner = JsonScanner()
        i = scanner.scan(text)
        return scanner.close() and not text[i:].strip(_WS)
    m = _WS_RUN.match(text)
    end = value_end(text, m.end() if m is not None else 0)
    return end >= 0 and not text[end:].strip(_WS)
