"""The bridge's stdout: one JSON object a line, keyed ``acp``, which ``parser.py`` reads.

The bridge (``bridge.py``) is the ACP client; holon's supervisor reads only its stdout. Each
line is one thing that happened on the ACP connection, kept close to the wire so the parser,
not the bridge, decides what it means:

``initialized``  the agent's ``initialize`` answer (agent name/version, auth methods)
``session``      ``session/new`` answered (session id, current model when the agent says)
``update``       one ``session/update`` notification's ``update``, as the agent sent it
``permission``   a permission request and the option the headless policy chose
``unanswerable`` an agent request the client does not serve, answered "method not found"
``stop``         ``session/prompt`` answered: ``stop_reason`` (and the answer's ``_meta``)
``error``        a request failed: ``stage`` (the method), JSON-RPC ``code``, ``message``, ``data``
``agent_exit``   the agent's process ended before the prompt was answered
``cancel``       the bridge was told to stop (SIGTERM) and sent ``session/cancel``

Kept free of the ACP SDK: the parser imports it too.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

#: Every line kind, in the order they can appear.
KINDS = (
    "initialized",
    "session",
    "update",
    "permission",
    "unanswerable",
    "stop",
    "error",
    "agent_exit",
    "cancel",
)


class LineWriter:
    """Writes one flushed JSON line per call; the supervisor reads them as they come."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream if stream is not None else sys.stdout

    def emit(self, kind: str, /, **fields: Any) -> None:
        line = json.dumps({"acp": kind, **fields}, ensure_ascii=False, default=str)
        self._stream.write(line + "\n")
        self._stream.flush()
