"""The spec, the contract's input: reading ``spec.yaml`` and checking it before pydantic.

Owns the spec file read (size cap, regular files only: ``file``), the one set of rules the
run and the probe both apply without pydantic (``rules``), duration values (``durations``)
and building the pydantic ``Spec`` after those rules (``load``). It may import
``holon_core.errors``, ``untrusted``, ``skill.env_rules`` and ``models``; ``models`` in turn
uses ``durations`` (the two form the contract layer, with no module circle between them).
"""
