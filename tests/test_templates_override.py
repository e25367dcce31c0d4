"""``--templates DIR``: the user's templates replace the built-in ones by file name.

Covers a header override (every file, runtime copies too), a models template that
extends the built-in one to add a method to every model on both targets, ``check``
honouring the same folder, and the one-line errors for a file that replaces nothing and
for a template that does not render.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from acp_codegen import emit
from acp_codegen.cli import main
from acp_codegen.errors import UsageError
from acp_codegen.pipeline import Job, generate

GOLDEN = Path(__file__).resolve().parent / "golden"
SCHEMA = GOLDEN / "open_union" / "schema.json"
LICENCE = "# SPDX-License-Identifier: Apache-2.0"
METHOD = """{% extends BASE %}
{% block struct_members scoped %}

    def kind_of_model(self) -> str:
        return {{ s.name | pystr }}
{% endblock %}
"""


def folder(tmp_path: Path, **templates: str) -> Path:
    where = tmp_path / "my_templates"
    where.mkdir(exist_ok=True)
    for name, text in templates.items():
        (where / name.replace("__", ".")).write_text(text, encoding="utf-8")
    return where


def test_header_override_reaches_every_file(tmp_path: Path, target: str) -> None:
    header = LICENCE + '\n{% include "common/header.j2" %}'
    templates = folder(tmp_path, header__j2=header)
    job = Job(SCHEMA, tmp_path / "pkg", "pkg", target=target, templates=templates)
    files = generate(job)
    plain = generate(Job(SCHEMA, tmp_path / "pkg", "pkg", target=target))
    for name, text in files.items():
        if name.endswith(".py") and name != "_provenance.py":  # it records the override
            assert text.startswith(LICENCE + "\n"), name
            assert text.split("\n", 1)[1].split("\n", 2)[2] == plain[name].split("\n", 2)[2]
    assert "header.j2" in files["_provenance.py"]


def test_models_template_adds_a_method_to_every_model(tmp_path: Path, target: str) -> None:
    # msgspec and dataclasses use the shared models template as it is; pydantic adds a
    # footer to it.
    own = Path(__file__).resolve().parent.parent / "templates" / target / "models.py.j2"
    base = f"{target}/models.py.j2" if own.exists() else "common/models.py.j2"
    templates = folder(tmp_path, models__py__j2=METHOD.replace("BASE", repr(base)))
    name = f"custom_{target}"
    emit.write_tree(
        tmp_path / name,
        generate(Job(SCHEMA, tmp_path / name, name, target=target, templates=templates)),
    )
    sys.path.insert(0, str(tmp_path))
    try:
        importlib.invalidate_caches()
        pkg = importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))
    models = [getattr(pkg.models, n) for n in pkg.models.__all__]
    structs = [m for m in models if isinstance(m, type) and hasattr(m, "kind_of_model")]
    assert len(structs) >= 3
    update = pkg.decode_update(b'{"sessionUpdate": "text_chunk", "text": "hi"}')
    assert update.kind_of_model() == type(update).__name__


def test_check_uses_the_same_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    templates = folder(tmp_path, header__j2=LICENCE + '\n{% include "common/header.j2" %}')
    monkeypatch.chdir(tmp_path)
    common = ["--schema", str(SCHEMA), "--out", "out/pkg", "-q"]
    runner = CliRunner()
    assert runner.invoke(main, ["generate", *common, "--templates", str(templates)]).exit_code == 0
    assert runner.invoke(main, ["check", *common, "--templates", str(templates)]).exit_code == 0
    assert runner.invoke(main, ["check", *common]).exit_code == 1  # the override is an input
    assert (tmp_path / "out/pkg/models.py").read_text().startswith(LICENCE)


def test_templates_job_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder(tmp_path, header__j2=LICENCE + '\n{% include "common/header.j2" %}')
    (tmp_path / "pyproject.toml").write_text(
        "[tool.acp-codegen]\n"
        f"schema = {str(SCHEMA)!r}\nout = 'out/pkg'\ntemplates = 'my_templates'\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(main, ["generate", "-q"]).exit_code == 0
    assert runner.invoke(main, ["check", "-q"]).exit_code == 0
    assert (tmp_path / "out/pkg/codec.py").read_text().startswith(LICENCE)


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"model__py__j2": ""}, "'model.py.j2' replaces no msgspec template"),
        ({"models__py__j2": "{{ nope }}"}, "template models.py.j2: 'nope' is undefined"),
        ({"models__py__j2": "{% if %}"}, "models.py.j2:1: Expected an expression"),
    ],
)
def test_bad_override_is_one_line(
    tmp_path: Path, files: dict[str, str], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    templates = folder(tmp_path, **files)
    with pytest.raises(UsageError) as caught:
        generate(Job(SCHEMA, tmp_path / "pkg", "pkg", templates=templates))
    assert message in str(caught.value) and "\n" not in str(caught.value)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        main, ["generate", "--schema", str(SCHEMA), "--out", "o/pkg", "--templates", str(templates)]
    )
    assert result.exit_code == 2 and not (tmp_path / "o").exists()


def test_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not a folder"):
        generate(Job(SCHEMA, tmp_path / "pkg", "pkg", templates=tmp_path / "absent"))
