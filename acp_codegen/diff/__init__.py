"""The schema diff tool (``acp-codegen diff OLD NEW``), apart from the generator.

It reuses the generator's `load` and `build` stages to turn each revision into
an IR module, then works only on IR:

- `compare`: match definitions (renames included) and collect `Change`s; `diff_paths`
  is the entry point the command uses;
- `defs`: compare one matched pair of definitions member by member;
- `types`: compare type expressions and describe them in one canonical spelling;
- `rules`: the one table saying how serious each kind of change is;
- `format`: render a `Report` as text, JSON, Markdown or a changelog;
- `cli`: the click command.

Nothing in the generator imports this package except the top-level CLI.
"""

from __future__ import annotations

from .compare import METHODS, Change, Report, Selection, compare, diff_paths, select

__all__ = ["METHODS", "Change", "Report", "Selection", "compare", "diff_paths", "select"]
