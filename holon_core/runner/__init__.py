"""The host-side runner behind ``holon run``: snapshot, drive holon-agent, judge the result.

Owns the run directory's layout and states (``layout``, ``runs``), the inputs copied in
(``inputs``, ``copy_in``, ``skill_sources``, ``task_spec``), holon-agent driven as a separate
process, in the container or not (``run``, ``process``, ``container``, ``agent_env``,
``signals``, ``streams``), and the judgement of what it left (``validate``, ``report``,
``agent_stderr``). It may import the layers below (``workspace``, ``hooks``, ``spec``,
``models``, ``untrusted``) and the agent's shared helpers (engine selection, the output dir's
marker), never the agent's pipeline: the run goes through the contract, like a container's.
Import from the modules (``holon_core.runner.run`` ``run_task``); this file imports nothing,
so no module of the runner pulls in the rest.
"""
