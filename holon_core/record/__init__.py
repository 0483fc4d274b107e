"""The run's record: from the engine's signals to the outcome and ``manifest.json``.

Owns the one outcome rule with its reason codes (``outcome``), the atomic, redacted write of
``manifest.json`` with the artifacts inventory (``manifest_writer``) and the bounded read and
merge of a manifest a skill or engine wrote itself (``engine_manifest``). It may import
``untrusted``, ``models`` and ``engine`` (the report it judges); the agent's pipeline calls
it, never the reverse.
"""
