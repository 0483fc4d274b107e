"""Process supervision: starting an engine in its own session and owning every process it makes.

Owns the supervise call (``supervisor``) and its loop with the timeouts and teardown ladder
(``engine_run``); finding and killing a run's descendants (``tree``, over one cheap ``/proc``
scan ``proc_scan``, the claims of runs side by side ``claims``, the subreaper and
parent-death signal ``reaper``); the readers that splice the engine's pipes into a spool
file (``pipes``); and the watchdog that outlives a killed supervisor (``watchdog``, shared
by serve's turns in ``watchdogs``). It may import ``errors`` and ``engine`` (the launch
plan it runs); nothing of the pipeline that calls it.
"""
