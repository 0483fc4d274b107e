"""``holon batch``: many ``holon run``s from one job file, on this machine or on Ray.

Owns the job file (``job``), its cells (``cells``), the bounded pool and its executors
(``pool``, ``local``, ``holon_run``, ``ray_executor``, ``ray_worker``), retries, results and
resume (``retry``, ``results``), progress and the report (``progress``, ``report``), run by
``run``. It drives ``holon run`` as a separate process per cell and may import the runner's
helpers and the layers below; import from the modules, this file imports nothing.
"""
