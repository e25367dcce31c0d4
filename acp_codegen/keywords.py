"""Build-stage check: every JSON Schema keyword is enforced, merely describes, or is refused.

Runs over the selected definitions before any IR is built (`build.build`), on every
schema position (`limits.schema_nodes`), so a keyword is judged wherever it sits, even
where the build would not look. A keyword belongs to one of these groups
(docs/compatibility.md has the table):

- read by the build (`STRUCTURE`) or enforced by every target's generated code
  (`ENFORCED`, carried in `ir.Constraints`);
- annotations, which say nothing about which values are valid (`ANNOTATIONS`, and a
  ``format`` the generator knows, see `KNOWN_FORMATS`);
- keywords that would change a value's shape, which no target models (`SHAPE`): always
  refused;
- validation that no target enforces (`UNENFORCED`, an unknown ``format``, ``required``
  naming a property that is not declared, the schema ``false``): refused too, unless
  the job allows that keyword (``--allow-unenforced KEYWORD``), in which case each
  occurrence is listed in `Unenforced.found`, warned about and recorded in the package.

Keys outside the JSON Schema vocabulary (``x-*`` extensions, OpenAPI's ``discriminator``)
are not keywords and pass, as JSON Schema has them pass.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from . import ir
from .errors import SchemaError, join_pointer
from .limits import schema_nodes

STRUCTURE = frozenset(
    {"$schema", "$defs", "$ref", "type", "properties", "required", "items", "allOf", "anyOf",
     "oneOf", "not", "const", "enum", "additionalProperties", "unevaluatedProperties"}
)  # fmt: skip
#: Checked by the generated code of every target, on the types JSON Schema applies them to.
ENFORCED = frozenset(
    {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
     "maxLength", "pattern", "minItems", "maxItems", "format"}
)  # fmt: skip
ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "$comment", "deprecated", "readOnly",
     "writeOnly", "contentEncoding", "contentMediaType"}
)  # fmt: skip
#: Keywords that change the shape of a value, which no target models: always refused.
SHAPE = (
    "prefixItems", "if", "then", "else", "dependentSchemas", "patternProperties", "$dynamicRef",
    "$dynamicAnchor", "contains", "minContains", "maxContains", "propertyNames",
    "unevaluatedItems", "additionalItems", "dependencies", "contentSchema", "$id", "$anchor",
    "$recursiveRef", "$recursiveAnchor", "$vocabulary",
)  # fmt: skip
#: Validation keywords no target enforces; ``--allow-unenforced`` may let them through.
UNENFORCED = ("maxProperties", "minProperties", "uniqueItems", "dependentRequired")
#: What ``--allow-unenforced`` may name: those keywords, an unknown ``format``,
#: ``multipleOf`` on a ``number`` (the libraries round floats differently), ``required``
#: naming an undeclared property, and the schema ``false``.
ALLOWABLE = (*UNENFORCED, "format", "multipleOf", "required", "false")
#: ``format`` values the generator knows: the integer widths it enforces as bounds
#: (`ir.INT_FORMAT_BITS`) and the formats of JSON Schema 2020-12 and OpenAPI, which are
#: annotations (JSON Schema asserts no format by default).
KNOWN_FORMATS = frozenset(ir.INT_FORMAT_BITS) | frozenset(
    {"float", "double", "byte", "binary", "password", "date-time", "date", "time", "duration",
     "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6", "uri", "uri-reference",
     "iri", "iri-reference", "uuid", "uri-template", "json-pointer", "relative-json-pointer",
     "regex"}
)  # fmt: skip


@dataclass
class Unenforced:
    """Refuses validation no target enforces, or, for a keyword the job allows, notes it."""

    allowed: frozenset[str]
    source: str
    #: ``(keyword, pointer)`` of every occurrence let through, in the order found.
    found: list[tuple[str, str]] = field(default_factory=list)

    def meet(self, keyword: str, what: str, pointer: str) -> None:
        """`what` (at `pointer`) is not enforced: refuse it unless `keyword` is allowed."""
        if keyword not in self.allowed:
            raise SchemaError(
                f"{what}, which no target enforces; pass --allow-unenforced {keyword} to "
                "generate without it",
                pointer,
                self.source,
            )
        self.found.append((keyword, pointer))


def check(defs: dict[str, Any], names: Iterable[str], unenforced: Unenforced) -> None:
    """Refuse the first shape keyword, and meet every unenforced one, under `names`."""
    for node, pointer in schema_nodes(defs, names):
        if node is False:
            unenforced.meet("false", "the schema false (no value is valid here)", pointer)
        if not isinstance(node, dict):
            continue
        for key in SHAPE:
            if key in node:
                raise SchemaError(
                    f"unsupported keyword {key!r}", join_pointer(pointer, key), unenforced.source
                )
        for key in UNENFORCED:
            if key in node and not _says_nothing(key, node[key]):
                unenforced.meet(key, f"keyword {key!r}", join_pointer(pointer, key))
        fmt = node.get("format")
        if isinstance(fmt, str) and fmt not in KNOWN_FORMATS:
            where = join_pointer(pointer, "format")
            unenforced.meet("format", f"unknown format {fmt!r}", where)
        if "multipleOf" in node and _number(node):
            where = join_pointer(pointer, "multipleOf")
            unenforced.meet("multipleOf", "multipleOf on a number", where)
        if _map(node):  # (a struct's required names are checked as it is built)
            for index, name in enumerate(node["required"]):
                what = f"required names {name!r}, which is not a declared property"
                unenforced.meet("required", what, join_pointer(pointer, "required", index))


def _says_nothing(key: str, value: Any) -> bool:
    """Values of the unenforced keywords that every value meets anyway."""
    if key == "uniqueItems":
        return value is False
    if key == "minProperties":
        return value == 0 and not isinstance(value, bool)
    return key == "dependentRequired" and value == {}


def _number(node: dict[str, Any]) -> bool:
    declared = node.get("type")
    return declared == "number" or (isinstance(declared, list) and "number" in declared)


def _map(node: dict[str, Any]) -> bool:
    """An object read as a map (its values all of one schema) that names required keys."""
    required = node.get("required")
    return (
        isinstance(required, list)
        and bool(required)
        and isinstance(node.get("additionalProperties"), dict)
        and not {"properties", "allOf", "$ref", "anyOf", "oneOf"} & set(node)
    )
