"""Cassettes: one real run's model traffic, recorded once and replayed offline (issue 25).

What it owns: the versioned cassette format and its content-addressed body store
(:mod:`~holon_core.cassette.format`, its records :mod:`~holon_core.cassette.records`),
recording a run's model calls at the gateway's httpx transport
(:mod:`~holon_core.cassette.record`) with every known secret scrubbed
(:mod:`~holon_core.cassette.scrub`), and replaying them (normalize, match, replay, mismatch,
check). Docs: ``docs/cassettes.md``.

What it may import: the standard library, pydantic, httpx, :mod:`holon_core.errors`,
:mod:`holon_core.untrusted.redact` and the gateway's wire helpers
(:mod:`holon_core.gateway.apis`, :mod:`~holon_core.gateway.setting`, and
:mod:`~holon_core.gateway.leases` to tell a serve session's turns apart). It never imports the
agent pipeline, serve mode, an adapter or the conformance kit; the pipeline hooks it in
through ``holon_core.agent`` (``record_cassette``, ``record_session``).

Nothing is imported here, so loading the package costs nothing until a cassette is used.
"""
