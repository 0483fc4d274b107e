"""``holon-agent``: the RFC-0002 agent entrypoint (one-shot run and probe)."""
