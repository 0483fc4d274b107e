"""Shell calls Gemini CLI refused or cut off, told apart from commands that ran.

Gemini CLI 0.61.0 (``ShellToolInvocation.execute`` in its bundle) answers some
``run_shell_command`` calls without running the command and still prints ``status:
success``; the ``output`` is then the CLI's own display text, not the command's:

* a command substitution (``$(...)``, backticks, ``<(...)``, ``>(...)``) is never run:
  "Blocked: command substitution detected in shell command.";
* a call cancelled before or while running (the run is being stopped): "Command cancelled
  by user.", with any output after it;
* a command silent for longer than ``tools.shell.inactivityTimeout`` is killed: "Command was
  automatically cancelled because it exceeded the timeout of N minutes without output.".

Its other refusals already say ``status: error`` with an ``error.type`` (a policy rule, a
``dir_path`` outside the workspace, bad parameters); they get the same kind of sentence.
"""

from __future__ import annotations

SUBSTITUTION_BLOCKED = "Blocked: command substitution detected in shell command."
CANCELLED = "Command cancelled by user."
TIMED_OUT = "Command was automatically cancelled because it exceeded the timeout"
#: What a command line needs for the CLI to see a substitution (so a command that merely
#: prints the refusal text is not taken for a refused one).
SUBSTITUTION_MARKS = ("$(", "`", "<(", ">(")
#: ``error.type`` of a ``status: error`` result -> what the CLI refused.
REFUSED_ERRORS = {
    "policy_violation": "denied by policy",
    "path_not_in_workspace": "the directory is outside the workspace",
    "invalid_tool_params": "invalid parameters",
    "sandbox_expansion_required": "the sandbox would have to be widened",
}
#: Characters of the CLI's own message kept in a sentence.
MESSAGE_CHARS = 200


def refusal(command: str, status: object, output: object, error: object) -> tuple[str, str] | None:
    """Why the CLI did not run (or finish) ``command``: (kind, sentence); None otherwise.

    ``status``, ``output`` and ``error`` are the ``tool_result`` event's fields; the kind is
    Gemini's ``error.type``, else ``command_substitution``, ``cancelled`` or ``timeout``.
    """
    if status == "error":
        return _error_sentence(error)
    if not isinstance(output, str):
        return None
    if output == SUBSTITUTION_BLOCKED and any(mark in command for mark in SUBSTITUTION_MARKS):
        return "command_substitution", (
            "refused by Gemini CLI: command substitution ($(...), backticks, <(...) or "
            ">(...)) is blocked; the command did not run"
        )
    if output == CANCELLED or output.startswith(CANCELLED + "\n"):
        return "cancelled", "cancelled by Gemini CLI before it finished (the run was stopped)"
    if output.startswith(TIMED_OUT):
        first = output.split("\n", 1)[0]
        return "timeout", f"cancelled by Gemini CLI: {first[:MESSAGE_CHARS]}"
    return None


def _error_sentence(error: object) -> tuple[str, str] | None:
    if not isinstance(error, dict):
        return None
    kind = str(error.get("type") or "")
    what = REFUSED_ERRORS.get(kind)
    if what is None:
        return None  # the command ran and failed, or the tool broke: not a refusal
    message = str(error.get("message") or "").strip()[:MESSAGE_CHARS]
    sentence = f"refused by Gemini CLI: {what}"
    return kind, f"{sentence} ({message})" if message else sentence
