"""acp-codegen: typed, forward-compatible Python bindings for ACP's session/update schema.

The pipeline, one module per stage::

    load -> build (schema -> IR) -> lowering + targets/<name> (IR -> view) -> render
    -> format -> emit

`naming` derives every Python name; `ir` is the typed contract between stages.
"""

__version__ = "0.1.0"
