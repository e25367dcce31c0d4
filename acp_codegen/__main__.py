"""``python -m acp_codegen`` runs the CLI."""

from .cli import main

main()
