"""Patterns mean what ECMA-262 says, on every target, or the generator refuses them.

`MATCHES` pairs each pattern with values and the answer ECMA-262 gives for them (read
with the u flag, as JSON Schema 2020-12 asks, and searched anywhere in the value), each
answer written down here by hand. One schema carries every pattern on a string property
of its own; every target decodes each value and must accept exactly the matching ones
and give the value back unchanged. `REFUSED` holds patterns the generator refuses: one
line naming the pattern's pointer, exit code 2, nothing written.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner

from acp_codegen.cli import main
from tests.conftest import GenerateFn
from tests.hostile_cases import assert_one_line_refusal, snapshot, with_defs

#: Pattern -> (value, whether ECMA-262 finds the pattern in it).
MATCHES: dict[str, list[tuple[str, bool]]] = {
    "^[a-z]+$": [("abc", True), ("abc\n", False), ("", False), ("\nabc", False), ("ab1", False)],
    "^abc$": [("abc", True), ("abc\n", False), ("abc\r", False), ("abc\u2028", False)],
    "abc$": [("xabc", True), ("abc\n", False), ("abcabc", True), ("abc\nabc", True)],
    "^$": [("", True), ("\n", False), (" ", False)],
    "^a.c$": [
        ("abc", True), ("a\nc", False), ("a\rc", False), ("a\u2028c", False),
        ("a\u2029c", False), ("a\u0085c", True), ("a\U0001f600c", True), ("a\tc", True),
    ],
    r"^\d+$": [("123", True), ("\u0663", False), ("\uff11", False), ("12\n", False), ("", False)],
    r"^\D$": [("\u0663", True), ("3", False), ("\n", True)],
    r"\d": [("x3", True), ("x\u0663y", False), ("\u00b2", False)],
    r"^\w+$": [("abc_9", True), ("\u00e9", False), ("\u00df", False), ("\u0663", False),
               ("a-b", False), ("A_z", True)],
    r"^\W$": [("\u00e9", True), ("_", False), ("-", True)],
    r"^\s$": [
        (" ", True), ("\t", True), ("\n", True), ("\v", True), ("\f", True), ("\r", True),
        ("\u00a0", True), ("\ufeff", True), ("\u2028", True), ("\u3000", True),
        ("\u1680", True), ("\u202f", True), ("\x1c", False), ("\x85", False),
        ("\u200b", False), ("a", False),
    ],
    r"^\S+$": [("a\u00a0b", False), ("a\x85b", True), ("\ufeff", False), ("\x1f", True)],
    r"^[^\s,]+$": [("a;b", True), ("a,b", False), ("a\ufeffb", False), ("\x85", True)],
    r"\bfoo\b": [("a foo b", True), ("\u00e9foo\u00e9", True), ("_foo", False), ("foo1", False),
                 ("foo", True)],
    r"^a\Bb$": [("ab", True), ("a b", False)],
    r"^[^a]$": [("\n", True), ("a", False), ("\U0001f600", True), ("", False)],
    r"^[\d_]+$": [("1_2", True), ("\u0663", False), ("_\n", False)],
    r"^[\w-]+$": [("a-b_c", True), ("\u00e9", False), ("a b", False)],
    "^\u00e9$": [("\u00e9", True), ("e\u0301", False)],
    r"^\uD83D\uDE00$": [("\U0001f600", True), ("\U0001f601", False)],
    r"^\u{1F600}.$": [("\U0001f600\U0001f600", True), ("\U0001f600", False)],
    r"^\x41\u0042\u{43}$": [("ABC", True), ("abc", False)],
    r"^\cJ\t$": [("\n\t", True), ("\\cJ\\t", False)],
    r"^[\b]$": [("\b", True), ("b", False)],
    r"^\/\.\*$": [("/.*", True), ("/a*", False)],
    "^[^]$": [("\n", True), ("\u2028", True), ("", False), ("ab", False)],
    "^[]?$": [("", True), ("a", False)],
    "^a|b$": [("a\n", True), ("xb\n", False), ("xb", True)],
    "^(ab)+$": [("abab", True), ("abab\n", False), ("aba", False)],
    "^a{2,3}$": [("aa", True), ("aaa", True), ("aaaa", False), ("aa\n", False)],
    r"^(?<year>\d{4})-(?:\d\d)$": [("2024-01", True), ("2024-01\n", False),
                                   ("\u0662\u0660\u0662\u0664-01", False)],
    "^[A-Z]{3}$": [("EUR", True), ("EUR\n", False), ("eur", False), ("EURO", False)],
    r"^\0$": [("\x00", True), ("0", False)],
    "^# ?$": [("#", True), ("# ", True), ("#\n", False)],
}  # fmt: skip

#: Pattern -> what the one line must say. Read as ECMA-262 with the u flag, these are not
#: regular expressions, or ones generated code cannot match the same way.
_INVALID = "read as ECMA-262 with the u flag: "
_CANNOT = "which generated code cannot match as ECMA-262 does"
REFUSED: dict[str, str] = {
    r"^a\Z": _INVALID + r"\Z is not an escape of ECMA-262",
    r"\Aa": _INVALID + r"\A is not an escape of ECMA-262",
    r"^a\z": _INVALID + r"\z is not an escape of ECMA-262",
    "(?P<n>a)": _INVALID + "(? starts no group ECMA-262 has",
    "(?i)^a$": _INVALID + "(? starts no group ECMA-262 has",
    "^a{,3}$": _INVALID + "a { that does not start a quantifier",
    "^a{2": _INVALID + "a { that does not start a quantifier",
    "^a++$": _INVALID + "nothing to repeat (a quantifier follows a quantifier)",
    "^a*+$": _INVALID + "nothing to repeat (a quantifier follows a quantifier)",
    "^a}$": _INVALID + "a lone }",
    "^a]$": _INVALID + "a lone ]",
    "^*a": _INVALID + "an assertion cannot be repeated",
    r"^[\d-z]$": _INVALID + r"a class escape such as \d cannot end a range",
    "^[z-a]$": _INVALID + "range out of order",
    r"^\e$": _INVALID + r"\e is not an escape of ECMA-262",
    r"^[\B]$": _INVALID + r"\B in a character class is not an escape of ECMA-262",
    r"^\-$": _INVALID + r"\- is not an escape of ECMA-262",
    r"^\01$": _INVALID + r"\0 is not an escape of ECMA-262",
    r"^\x4$": _INVALID + "an escape needs 2 hexadecimal digits",
    "^(a$": _INVALID + "missing )",
    "^a)$": _INVALID + "unmatched )",
    "^[a$": _INVALID + "missing ]",
    "(?<a>x)(?<a>y)": _INVALID + "group name 'a' is used twice",
    r"^\p{L}$": r"holds a Unicode property escape such as \p{L}, " + _CANNOT,
    "^(?i:a)$": "holds a modifier group such as (?i:...), " + _CANNOT,
    r"^\B$": r"holds \B where the value may be empty",
    "(" * 101 + ")" * 101: "holds groups nested more than 100 deep, " + _CANNOT,
    "^a{99999999999}$": "is ECMA-262 that Python's re cannot compile: the repetition number",
    r"^(a)\1$": "is sure to match in linear time: it holds a backreference",
    r"^(?<a>x)\k<a>$": "is sure to match in linear time: it holds a backreference",
    "^(?<=a)b": "is sure to match in linear time: it holds a lookahead or lookbehind",
    r"^\w+\d$": "a repetition can go on or stop at the same character",
}  # fmt: skip


def _schema(tmp_path: Path, patterns: list[str]) -> Path:
    properties = {f"p{i}": {"type": "string", "pattern": p} for i, p in enumerate(patterns)}
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(with_defs(A={"type": "object", "properties": properties})))
    return path


@pytest.fixture(scope="module")
def patterns_schema(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _schema(tmp_path_factory.mktemp("ecma"), list(MATCHES))


def _accepts(pkg: ModuleType, field: str, value: str) -> bool:
    payload = json.dumps({field: value})
    try:
        decoded = pkg.decode(payload, pkg.A)
    except pkg.DecodeError:
        return False
    assert getattr(decoded, field) == value
    assert json.loads(pkg.encode(decoded)) == {field: value}
    return True


def test_every_target_matches_as_ecma_262_does(
    make_package: GenerateFn, target: str, patterns_schema: Path
) -> None:
    pkg = make_package(patterns_schema, "ecma_patterns", target=target, take_all=True)
    wrong = [
        (pattern, value, expected)
        for i, (pattern, cases) in enumerate(MATCHES.items())
        for value, expected in cases
        if _accepts(pkg, f"p{i}", value) is not expected
    ]
    assert not wrong, wrong


def test_the_table_is_wide_enough() -> None:
    assert len(MATCHES) >= 20
    assert all(any(ok for _, ok in cases) and not all(ok for _, ok in cases)
               for cases in MATCHES.values())  # fmt: skip


@pytest.mark.parametrize("pattern", list(REFUSED), ids=lambda p: p[:30])
def test_refused_with_one_line_naming_the_pattern(pattern: str, tmp_path: Path) -> None:
    schema = _schema(tmp_path, [pattern])
    out = tmp_path / "out" / "pkg"
    out.parent.mkdir()
    result = CliRunner().invoke(
        main, ["generate", "--schema", str(schema), "--out", str(out), "--package", "pkg", "--all"]
    )
    assert_one_line_refusal(result, schema, REFUSED[pattern], "/$defs/A/properties/p0/pattern")
    assert snapshot(out.parent) == {}
