"""The GitHub Action's logic (``action.yml`` at the repository root only installs holon and
calls ``holon action run``), kept here so it is tested like the rest of holon.

Owns: the action's inputs (``INPUT_*`` variables the composite step sets) turned into one
``holon run`` or ``holon solve`` command (:mod:`.inputs`); the record read back into the
step's outputs and the job summary (:mod:`.result`, :mod:`.summary`); the runner's files,
``$GITHUB_OUTPUT`` and ``$GITHUB_STEP_SUMMARY`` (:mod:`.github`); the two entries
(:mod:`.entry`), reached by ``holon action`` (``cli/action_cmd.py``).

May import: the standard library, ``holon_core.untrusted`` (the record is the engine's to
write) and ``holon_core.report.explain`` (the reason sentences); it runs holon itself as a
separate process, as a user's step would.
"""
