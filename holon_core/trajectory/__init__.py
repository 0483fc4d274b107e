"""The run as an ATIF trajectory: ``evidence/trajectory.json`` in Harbor's Agent Trajectory
Interchange Format (ATIF-v1.8), so a holon run loads into the tools the evaluation world
already uses (Harbor's viewer, its trainers, anything that reads ATIF).

Owns: turning what a run recorded (``evidence/events.ndjson``, the gateway's
``evidence/model-calls.ndjson`` when present, the manifest's figures) into ATIF steps, tool
calls, observations and metrics (:mod:`.steps`, :mod:`.metrics`, :mod:`.atif`), and writing
the file at the end of every run (:mod:`.write`, called once from the agent's finish).

May import: the standard library and holon_core's files/evidence helpers; nothing of the
engines, pydantic or Harbor itself (Harbor's validator is a test-only oracle, see
``tests/trajectory/``).
"""

from __future__ import annotations

ATIF_VERSION = "ATIF-v1.8"
