"""Package layout that pyproject.toml alone cannot say: templates/ ships inside the package.

Everything else (metadata, dependencies, package data globs) is in pyproject.toml.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["acp_codegen*"]), "acp_codegen.templates"],
    package_dir={"acp_codegen.templates": "templates"},
)
