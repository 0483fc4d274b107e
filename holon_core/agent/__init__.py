"""``holon-agent``: the RFC-0002 agent entrypoint (one-shot run and probe).

The run, in order (``run.py`` orchestrates, one module a step): ``paths.py`` (1: where
everything is) -> ``prepare.py`` (1-6, up to the launch: ``admission.py`` refuses what a run
cannot do, the same check the probe makes; ``workspace/baseline.py``; skills staged;
``prompt.py``) -> ``execute.py`` (7-8: the launch plan under ``process/supervisor.py``, inside
the room through ``sandbox_run.py``, the model calls through ``gateway_run.py``; events into
``evidence.py`` and ``evidence_stream.py``) -> ``judge.py`` (9-10: ``diff.patch``,
``secret_scan.py``, the outcome rule in ``record/outcome.py``) -> ``finish.py`` (``summary.py``
and ``manifest.json`` on every path, its content from ``record.py``). What the run knows lives
in ``state.py``; ``main.py`` parses the flags and dispatches to the run, ``probe.py`` or serve
mode. ``scripts/map.py agent`` lists every module with its job.
"""
