"""Untrusted input and output: what holon reads from, or writes beside, an engine it distrusts.

Owns the bounded, non-following file reads and the held output directory (``files``), a
record's JSON and ndjson files read through them (``json_files``), the
redaction of known secrets in every printed form (``redact``), YAML with depth and node caps
(``yaml_safe``), bounded quotes of untrusted values in messages (``quoting``) and whether a
relative path given as text leaves its directory (``relative``). The lowest
layer: it imports only the standard library and PyYAML, nothing of holon, so every other
package may use it.
"""
