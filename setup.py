"""Package layout that pyproject.toml alone cannot say: templates/ and schema/ ship inside
the package (the schema is the default of ``acp-codegen conformance``).

Everything else (metadata, dependencies, package data globs) is in pyproject.toml.
"""

from setuptools import find_packages, setup

setup(
    packages=[
        *find_packages(include=["acp_codegen*"]),
        "acp_codegen.templates",
        "acp_codegen.schema",
    ],
    package_dir={"acp_codegen.templates": "templates", "acp_codegen.schema": "schema"},
)
