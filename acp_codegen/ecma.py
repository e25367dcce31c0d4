"""Build-stage step before the linear-time check: a ``pattern`` read as ECMA-262, rewritten
for Python's ``re``.

JSON Schema 2020-12 says a pattern is an ECMA-262 regular expression with Unicode
support (the ``u`` flag), searched for anywhere in the value. `translate` reads the
pattern with the grammar of that mode and writes a Python pattern that ``re.search``
matches on exactly the same strings, or raises:

- `Invalid` when the pattern is not ECMA-262 under the ``u`` flag (``\\Z``, ``\\A``,
  ``(?P<n>...)``, ``(?i)``, ``a{,3}``, ``a++``, a lone ``{``, ``]`` or ``}``, ...);
- `Untranslated` for ECMA-262 this translation does not carry (``\\p{...}``, modifier
  groups such as ``(?i:...)``, groups nested deeper than `MAX_NESTING`);
- `Refused` for a backreference, which no linear-time match allows (`patterns` refuses
  lookahead and lookbehind, passed on here in the spelling both dialects share).

Where the two dialects read the same text differently, the output spells out what
ECMA-262 means: ``$`` is the very end (``\\Z``: Python's ``$`` also matches before a final
newline); ``.`` is any character but the four line terminators; ``\\d``, ``\\w`` and their
negations are ASCII classes, ``\\s`` and ``\\S`` the exact set of ECMA-262's white space
and line terminators, all written as explicit classes; ``\\b`` and ``\\B`` test ASCII
word characters (through ``re.ASCII``, given as ``(?a)``, which touches nothing else the
output holds). Every class is written as its code point ranges.
"""

from __future__ import annotations

import re

#: Deepest nesting of groups translated (Python's own parser recurses per level).
MAX_NESTING = 100
_ALL = ((0, 0x10FFFF),)
_DIGIT = ((0x30, 0x39),)
_WORD = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
#: ECMA-262's WhiteSpace (tab, vertical tab, form feed, U+FEFF and general category Zs)
#: and LineTerminator (line feed, carriage return, U+2028, U+2029).
_SPACE = ((0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
          (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000),
          (0xFEFF, 0xFEFF))  # fmt: skip
_LINE_TERMINATORS = ((0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029))
#: The characters an ECMA-262 pattern may escape to mean themselves (u flag).
_SYNTAX = frozenset("^$\\.*+?()[]{}|/")
_CONTROL = {"f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B}
#: What Python's re reads as syntax outside a class, and inside one (where it warns of
#: set operations to come on a doubled & ~ or |).
_SPECIAL = frozenset(".^$*+?{}[]\\|()")
_CLASS_SPECIAL = frozenset("]\\^-[&~|")
_SPELLED = {0x09: "\\t", 0x0A: "\\n", 0x0B: "\\v", 0x0C: "\\f", 0x0D: "\\r"}
_HEX = frozenset("0123456789abcdefABCDEF")
_MODIFIERS = re.compile(r"[ims]*(-[ims]*)?:")


class Invalid(Exception):
    """The pattern is not ECMA-262 read with the u flag."""


class Untranslated(Exception):
    """ECMA-262 that `translate` does not carry into Python's re."""


class Refused(Exception):
    """Why a pattern is refused as one ``re`` may not match in linear time."""


def translate(pattern: str) -> str:
    """The Python ``re`` pattern that matches what ECMA-262 matches with `pattern`."""
    python = _read(pattern, "\\B")
    if "\\B" in pattern and _empty_differs(pattern):
        raise Untranslated("\\B where the value may be empty (re before Python 3.14 finds none)")
    return python


def _read(pattern: str, non_boundary: str) -> str:
    reader = _Reader(pattern, non_boundary)
    body = reader.disjunction()
    if reader.at < len(pattern):  # (only a ")" stops a disjunction early)
        raise Invalid("unmatched )")
    return "(?a)" + body if reader.ascii_words else body


def _empty_differs(pattern: str) -> bool:
    """Whether `pattern` matches the empty value in ECMA-262, where ``\\B`` holds there,
    and not in ``re`` before Python 3.14, where ``\\B`` never holds in an empty string."""
    ecma, old_re = (re.search(_read(pattern, spelled), "") for spelled in ("", _class(())))
    return (ecma is None) != (old_re is None)


def negate(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """Every code point not in `ranges` (sorted and disjoint)."""
    out, start = [], 0
    for lo, hi in ranges:
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    return (*out, (start, 0x10FFFF)) if start <= 0x10FFFF else tuple(out)


def union(ranges: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """`ranges` sorted, with overlapping and adjacent ones merged."""
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(hi, out[-1][1]))
        else:
            out.append((lo, hi))
    return tuple(out)


_CLASSES = {"d": _DIGIT, "w": _WORD, "s": _SPACE}
_CLASSES |= {k.upper(): negate(v) for k, v in _CLASSES.items()}


def _spell(code: int, in_class: bool = False) -> str:
    char = chr(code)
    if code in _SPELLED:
        return _SPELLED[code]
    if 0x20 <= code < 0x7F:
        return "\\" + char if char in (_CLASS_SPECIAL if in_class else _SPECIAL) else char
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _class(ranges: tuple[tuple[int, int], ...], negated: bool = False) -> str:
    if not ranges:  # ECMA's [] matches nothing and [^] any character; re has neither
        ranges, negated = _ALL, not negated
    parts = []
    for lo, hi in ranges:
        joint = "" if hi == lo + 1 else "-"  # (two neighbours read better side by side)
        spelled = _spell(lo, True), _spell(hi, True)
        parts.append(spelled[0] if lo == hi else joint.join(spelled))
    return f"[{'^' if negated else ''}{''.join(parts)}]"


class _Reader:
    """Reads one pattern by the u-flag grammar, returning each part's Python spelling."""

    def __init__(self, pattern: str, non_boundary: str) -> None:
        self.text, self.at, self.depth = pattern, 0, 0
        self.non_boundary = non_boundary
        self.names: set[str] = set()
        self.ascii_words = False

    def peek(self, ahead: int = 0) -> str:
        at = self.at + ahead
        return self.text[at] if at < len(self.text) else ""

    def take(self) -> str:
        char = self.peek()
        if not char:
            raise Invalid("the pattern ends too early")
        self.at += 1
        return char

    def disjunction(self) -> str:
        alternatives = [self.alternative()]
        while self.peek() == "|":
            self.take()
            alternatives.append(self.alternative())
        return "|".join(alternatives)

    def alternative(self) -> str:
        parts = []
        while self.peek() not in ("", "|", ")"):
            parts.append(self.term())
        return "".join(parts)

    def term(self) -> str:
        assertion = self.assertion()
        if assertion is not None:
            if self.peek() in ("*", "+", "?", "{"):
                raise Invalid("an assertion cannot be repeated")
            return assertion
        return self.atom() + self.quantifier()

    def assertion(self) -> str | None:
        char, rest = self.peek(), self.text[self.at :]
        if char == "^":
            self.take()
            return "^"
        if char == "$":
            self.take()
            return "\\Z"
        if rest[:2] in ("\\b", "\\B"):
            self.at += 2
            self.ascii_words = True
            return "\\b" if rest[1] == "b" else self.non_boundary
        for opening in ("(?=", "(?!", "(?<=", "(?<!"):
            if rest.startswith(opening):
                self.at += len(opening)
                return opening + self.group_body()
        return None

    def group_body(self) -> str:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise Untranslated(f"groups nested more than {MAX_NESTING} deep")
        body = self.disjunction()
        if self.peek() != ")":
            raise Invalid("missing )")
        self.take()
        self.depth -= 1
        return body + ")"

    def quantifier(self) -> str:
        char = self.peek()
        if char in ("*", "+", "?"):
            spelled = self.take()
        elif char == "{":
            spelled = self.braces()
        else:
            return ""
        if self.peek() == "?":
            spelled += self.take()
        if self.peek() in ("*", "+", "?", "{"):
            raise Invalid("nothing to repeat (a quantifier follows a quantifier)")
        return spelled

    def braces(self) -> str:
        self.take()
        low, high = self.digits(), None
        comma = self.peek() == ","
        if comma:
            self.take()
            high = self.digits()
        if low is None or self.peek() != "}":
            raise Invalid("a { that does not start a quantifier {n}, {n,} or {n,m}")
        self.take()
        if high is not None and high < low:
            raise Invalid(f"numbers out of order in {{{low},{high}}}")
        return f"{{{low}{',' if comma else ''}{'' if high is None else high}}}"

    def digits(self) -> int | None:
        start = self.at
        while self.peek().isascii() and self.peek().isdigit():
            self.at += 1
        return int(self.text[start : self.at]) if self.at > start else None

    def atom(self) -> str:
        char = self.take()
        if char == ".":
            return _class(_LINE_TERMINATORS, negated=True)
        if char == "(":
            return self.group()
        if char == "[":
            return self.character_class()
        if char == "\\":
            return self.atom_escape()
        if char in ("*", "+", "?"):
            raise Invalid("nothing to repeat")
        if char in ("]", "{", "}"):
            raise Invalid(f"a lone {char}, which must be escaped as \\{char}")
        return _spell(ord(char))

    def group(self) -> str:
        if self.peek() != "?":
            return "(" + self.group_body()
        rest = self.text[self.at + 1 :]
        if rest.startswith(":"):
            self.at += 2
            return "(?:" + self.group_body()
        if rest.startswith("<") and ">" in rest:
            name = rest[1 : rest.index(">")]
            if "\\" in name:
                raise Untranslated("a group name written with escapes")
            if not name or not name.replace("$", "_").isidentifier():
                raise Invalid(f"group name {name!r} is not an identifier")
            if name in self.names:
                raise Invalid(f"group name {name!r} is used twice")
            self.names.add(name)
            self.at += len(name) + 3
            return "(" + self.group_body()  # (a name changes nothing that is matched)
        if _MODIFIERS.match(rest):
            raise Untranslated("a modifier group such as (?i:...)")
        raise Invalid("(? starts no group ECMA-262 has")

    def atom_escape(self) -> str:
        char = self.peek()
        if char in _CLASSES:
            self.take()
            return _class(_CLASSES[char])
        if char in ("k", "1", "2", "3", "4", "5", "6", "7", "8", "9"):
            raise Refused("it holds a backreference")
        return _spell(self.character_escape(in_class=False))

    def character_class(self) -> str:
        negated = self.peek() == "^"
        if negated:
            self.take()
        ranges: list[tuple[int, int]] = []
        while self.peek() != "]":
            if not self.peek():
                raise Invalid("missing ]")
            low = self.class_atom()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.take()
                high = self.class_atom()
                if isinstance(low, tuple) or isinstance(high, tuple):
                    raise Invalid("a class escape such as \\d cannot end a range")
                if high < low:
                    raise Invalid("range out of order in a character class")
                ranges.append((low, high))
            elif isinstance(low, tuple):
                ranges.extend(low)
            else:
                ranges.append((low, low))
        self.take()
        return _class(union(ranges), negated)

    def class_atom(self) -> int | tuple[tuple[int, int], ...]:
        char = self.take()
        if char != "\\":
            return ord(char)
        escaped = self.peek()
        if escaped in _CLASSES:
            self.take()
            return _CLASSES[escaped]
        if escaped in ("b", "-"):
            self.take()
            return 0x08 if escaped == "b" else 0x2D
        return self.character_escape(in_class=True)

    def character_escape(self, in_class: bool) -> int:
        """The code point of the escape after a backslash."""
        char = self.take()
        if char in _CONTROL:
            return _CONTROL[char]
        if char in _SYNTAX:
            return ord(char)
        if char == "c" and self.peek().isascii() and self.peek().isalpha():
            return ord(self.take()) % 32
        if char == "0" and not (self.peek().isascii() and self.peek().isdigit()):
            return 0
        if char == "x":
            return self.hex(2)
        if char == "u":
            return self.unicode_escape()
        if char in ("p", "P"):
            raise Untranslated("a Unicode property escape such as \\p{L}")
        where = " in a character class" if in_class else ""
        raise Invalid(f"\\{char}{where} is not an escape of ECMA-262 (u flag)")

    def hex(self, count: int) -> int:
        spelled = self.text[self.at : self.at + count]
        if len(spelled) < count or not set(spelled) <= _HEX:
            raise Invalid(f"an escape needs {count} hexadecimal digits")
        self.at += count
        return int(spelled, 16)

    def unicode_escape(self) -> int:
        if self.peek() == "{":
            end = self.text.find("}", self.at)
            spelled = self.text[self.at + 1 : end] if end > 0 else ""
            if not spelled or not set(spelled) <= _HEX or int(spelled, 16) > 0x10FFFF:
                raise Invalid("\\u{...} needs a code point in hexadecimal, at most 10FFFF")
            self.at = end + 1
            return int(spelled, 16)
        code = self.hex(4)
        trail = self.text[self.at + 2 : self.at + 6]
        if (
            0xD800 <= code < 0xDC00
            and self.text[self.at : self.at + 2] == "\\u"
            and len(trail) == 4
            and set(trail) <= _HEX
            and 0xDC00 <= int(trail, 16) < 0xE000
        ):
            self.at += 6  # a surrogate pair: one code point under the u flag
            return 0x10000 + (code - 0xD800) * 0x400 + int(trail, 16) - 0xDC00
        return code
