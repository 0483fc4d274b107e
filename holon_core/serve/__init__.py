"""Serve mode: ``holon-agent serve``, many turns of one session over Open Responses on a Unix
socket (``server.py``, ``app.py``, ``turn.py``), and a client for it (``client.py``)."""
