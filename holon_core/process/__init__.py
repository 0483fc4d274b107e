"""Process supervision: starting an engine in its own session and owning every process it makes.

Owns the supervise loop with its timeouts and teardown ladder (``supervisor``), finding and
killing a run's descendants, subreaping (``tree``), the readers that splice the engine's pipes
into a spool file (``pipes``) and the watchdog that outlives a killed supervisor
(``watchdog``). It may import ``errors`` and ``engine`` (for the launch plan and parser it
runs); nothing of the pipeline that calls it.
"""
