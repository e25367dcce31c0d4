"""Benchmarks of acp-codegen against its peers (``python -m bench``; see bench/RESULTS.md).

Peers: the official ACP Python SDK's pydantic models, datamodel-code-generator's
pydantic v2 output, and a hand-written msgspec floor (`bench.floor`). Install
them with ``pip install -e '.[bench]'``. Modules: `timing` (interleaved rounds,
ratios), `packages` (code under test, generated per run), `peers`, `floor`,
`codec` (figures 2, 3, 4, 7), `cold` (1, 6), `reducer` (5), `report`.
"""
