"""The engine boundary: what an adapter is, and what the core asks of it.

Owns the adapter base class, its run context and launch plan (``adapter``), the engine's
report (``report``) and the parsers filling it (``parser``), capabilities enforced in one
place (``capability``), preflight checks (``checks``), engine binaries and their npm pins
(``binaries``), normalized events (``events``) and the copy of skills into an engine's own
folder (``staging``). The public API in ``holon_core`` re-exports
what adapter authors need from here. It may import ``errors``, ``untrusted``, ``skill``,
``spec`` and ``models``; never the pipeline (``agent``, ``record``, ``process``) above it.
"""
