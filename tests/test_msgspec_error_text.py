"""The msgspec package reads two things from msgspec's error text; this pins both forms.

- `_convert.error_path` reads where strict decoding failed from the `` - at `$...` ``
  suffix, to send the lenient pass straight to that node;
- `_convert._strictly` keeps the part before that suffix as the message of a scalar
  that failed inside the lenient pass.

Both forms are checked against the msgspec that is installed. CI runs this file at both
ends of the dependency range: with the newest msgspec the index offers, and with the
lowest one pyproject.toml allows (``.ci/lower-bounds.txt``). A msgspec that words its
errors differently fails here before it could only make decoding slower.
"""

from __future__ import annotations

import msgspec
import pytest

from generated.acp_session import _convert


class Inner(msgspec.Struct):
    n: int


class Outer(msgspec.Struct, rename="camel"):
    items: list[Inner]
    by_key: dict[str, Inner]
    some_name: int = 0


def _error(data: bytes) -> msgspec.ValidationError:
    with pytest.raises(msgspec.ValidationError) as info:
        msgspec.json.decode(data, type=Outer)
    return info.value


@pytest.mark.parametrize(
    ("data", "path"),
    [
        (b'{"items": [{"n": 1}, {"n": "x"}], "byKey": {}}', ["items", 1, "n"]),
        (b'{"items": [], "byKey": {"k.1": {"n": []}}}', ["byKey", "..."]),
        (b'{"items": [], "byKey": {}, "someName": "x"}', ["someName"]),
        (b'{"items": 5, "byKey": {}}', ["items"]),
    ],
)
def test_error_path_reads_where_strict_decoding_failed(data: bytes, path: list[object]) -> None:
    exc = _error(data)
    assert " - at `$" in str(exc) and str(exc).endswith("`")
    found = _convert.error_path(exc)
    if path[-1] == "...":  # a key msgspec writes in brackets: the path may stop early
        assert found[: len(path) - 1] == path[:-1]
    else:
        assert found == path


def test_an_error_at_the_top_has_no_path() -> None:
    exc = _error(b"[1]")
    assert _convert.error_path(exc) == []
    assert str(exc) == "Expected `object`, got `array`"


def test_the_message_before_the_path_is_what_a_scalar_reports() -> None:
    exc = _error(b'{"items": [{"n": "x"}], "byKey": {}}')
    message, found, _ = str(exc).partition(" - at `")
    assert found and message == "Expected `int`, got `str`"
    convert = _convert._strictly(int)
    with pytest.raises(ValueError, match=r"^Expected `int`, got `str`$"):
        convert("x")
