"""The registry of targets: one line per model library.

Each target is a folder here (``__init__.py`` defining ``TARGET``, its lowering
and a ``runtime/`` folder) with its templates in ``templates/<name>/``.
"""

from __future__ import annotations

from ..target import Target
from .dataclasses import TARGET as DATACLASSES
from .msgspec import TARGET as MSGSPEC
from .pydantic import TARGET as PYDANTIC

TARGETS: dict[str, Target] = {t.name: t for t in (MSGSPEC, PYDANTIC, DATACLASSES)}

__all__ = ["TARGETS", "Target"]
