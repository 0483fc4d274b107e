"""The room an engine runs in: bubblewrap namespaces, mounts, and the network bridge.

Owns: whether a run is confined (``setting.py``, ``HOLON_SANDBOX``), finding and probing
``bwrap`` (``bwrap.py``), what the room mounts and how (``mounts.py``), the admission check the
run and the probe share (``admit.py``), the host's end of the room's sockets (``bridge.py``: the
model endpoint; ``proxy.py``: the egress proxy that records every attempt in
``evidence/network.ndjson``, with its policy in ``policy.py``), the process that starts inside
the room before the engine (``room_init.py``, standard library only), and the room of one
run (``room.py``).

May import: the foundation (``errors``, ``untrusted``). Never the agent pipeline, the gateway or
an engine: ``agent/sandbox_run.py`` wires the room into a run.
"""
