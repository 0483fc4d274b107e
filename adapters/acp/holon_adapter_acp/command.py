"""Which agent the generic ``acp`` engine starts, its credentials, endpoint and auth method.

``HOLON_ACP_COMMAND`` (shell words, e.g. ``npx -y @scope/agent --acp``) or ``engine.command``
in the spec (a string of shell words or a list of words); the variable wins, as the
``HOLON_*`` variables do over the spec everywhere. ``HOLON_ACP_PASS_ENV`` names the variables
(comma or space separated) the agent needs, typically its API key: they are passed into its
environment, satisfy the credential check and are redacted from everything holon writes.
``HOLON_ACP_MODEL_API`` and ``HOLON_ACP_BASE_URL_ENV`` say which model API the agent calls
and where it reads the endpoint; ``HOLON_ACP_LOGIN`` names its ``authenticate`` method (not
``..._AUTH``: holon redacts the values of variables named like secrets).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from holon_core import Check, InputError

COMMAND_ENV = "HOLON_ACP_COMMAND"
PASS_ENV = "HOLON_ACP_PASS_ENV"
#: The agent's ``authenticate`` method id, for agents that serve no session before it.
AUTH_ENV = "HOLON_ACP_LOGIN"
#: The model wire API the agent speaks and the variable it reads its endpoint from: with both
#: set, holon's model gateway meters the agent and the conformance suite can point it at the
#: scripted model server, as for any adapter that declares ``model_api`` and ``endpoint_env``.
MODEL_API_ENV = "HOLON_ACP_MODEL_API"
BASE_URL_ENV = "HOLON_ACP_BASE_URL_ENV"
MODEL_APIS = ("anthropic-messages", "openai-responses", "google-generate-content")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def pass_env_names(env: Mapping[str, str]) -> tuple[str, ...]:
    """The names in ``HOLON_ACP_PASS_ENV``; a malformed one is refused at launch."""
    return tuple(name for name in re.split(r"[\s,]+", env.get(PASS_ENV, "")) if name)


def bad_pass_env_names(env: Mapping[str, str]) -> list[str]:
    return [name for name in pass_env_names(env) if not _NAME.match(name)]


def endpoint_settings(env: Mapping[str, str]) -> tuple[str | None, str | None]:
    """(model API, endpoint variable) when both are set and well formed, else (None, None)."""
    api, variable = env.get(MODEL_API_ENV, "").strip(), env.get(BASE_URL_ENV, "").strip()
    if api in MODEL_APIS and _NAME.match(variable):
        return api, variable
    return None, None


def endpoint_problem(env: Mapping[str, str]) -> str | None:
    """Why the endpoint settings cannot be used, or None (both unset is fine)."""
    api, variable = env.get(MODEL_API_ENV, "").strip(), env.get(BASE_URL_ENV, "").strip()
    if not api and not variable:
        return None
    if api not in MODEL_APIS:
        return f"{MODEL_API_ENV} must be one of {', '.join(MODEL_APIS)}, not {api!r}"
    if not _NAME.match(variable):
        return f"{BASE_URL_ENV} must name the variable the agent reads its endpoint from"
    return None


def settings_refusal(env: Mapping[str, str]) -> InputError | None:
    """The first of the generic engine's own settings that cannot be used (the endpoint, the
    pass-env names), or None. Its preflight reports it, so the probe and the run refuse it
    alike; :meth:`AcpAdapter.agent_argv` raises it for callers that skip the preflight."""
    problem = endpoint_problem(env)
    if problem:
        return InputError(problem, hint="see docs/acp.md, 'Any other ACP agent'")
    bad = bad_pass_env_names(env)
    if bad:
        return InputError(
            f"{PASS_ENV} names invalid variables: {', '.join(bad)}",
            hint=f"list variable names, e.g. {PASS_ENV}=MY_AGENT_API_KEY",
        )
    return None


def policy_refusal(env: Mapping[str, str]) -> InputError | None:
    """``HOLON_ACP_PERMISSION`` other than allow or reject (every ACP engine: the preflight
    reports it, the launch raises it)."""
    from holon_adapter_acp.policy import POLICY_ENV, policy_from

    if policy_from(env) in ("allow", "reject"):
        return None
    return InputError(
        f"{POLICY_ENV} must be allow or reject, not {env.get(POLICY_ENV)!r}",
        hint=f"unset {POLICY_ENV} (allow) or set it to reject",
    )


def refusal_checks(*refusals: InputError | None) -> list[Check]:
    """The refusals as failed preflight checks (``invalid_input``)."""
    return [
        Check("acp_settings", False, refused.message, refused.hint, "invalid_input")
        for refused in refusals
        if refused is not None
    ]


def agent_command(env: Mapping[str, str], spec_command: Any) -> list[str]:
    """The agent's argv; :class:`InputError` naming both sources when neither gives one."""
    raw = env.get(COMMAND_ENV, "").strip()
    source = COMMAND_ENV
    if not raw and spec_command is not None:
        source = "engine.command in the spec"
        if isinstance(spec_command, list) and all(isinstance(w, str) for w in spec_command):
            return _checked(list(spec_command), source)
        if not isinstance(spec_command, str):
            raise InputError(
                f"{source} must be a string of shell words or a list of words, "
                f"not {type(spec_command).__name__}",
                hint='e.g. engine: {name: acp, command: "my-agent --acp"}',
            )
        raw = spec_command
    if not raw:
        raise InputError(
            f"engine acp needs the ACP agent's command: set {COMMAND_ENV} or engine.command in "
            "the spec",
            hint=f'e.g. export {COMMAND_ENV}="gemini --acp" (see docs/acp.md for registry agents)',
        )
    import shlex  # here: loading the plugin (every holon process) does not need it

    try:
        words = shlex.split(raw)
    except ValueError as exc:
        raise InputError(
            f"{source} is not valid shell words ({exc}): {raw[:200]}",
            hint="quote it as you would on a shell command line",
        ) from None
    return _checked(words, source)


def _checked(words: list[str], source: str) -> list[str]:
    if not words or not words[0].strip():
        raise InputError(f"{source} is empty", hint="name the agent's program and its arguments")
    return words


def command_check(env: Mapping[str, str], spec_command: Any) -> Check:
    """The agent's command as the launch takes it (:func:`agent_command`), and its program
    found: the check the preflight (``HOLON_ACP_COMMAND``) and ``spec_problem``
    (``engine.command``) share."""
    try:
        program = agent_command(env, spec_command)[0]
    except InputError as exc:
        return Check("acp_command", False, exc.message, exc.hint, "invalid_input")
    import shutil  # the probe of any other engine does not need it

    found = shutil.which(program, path=env.get("PATH"))
    where = COMMAND_ENV if env.get(COMMAND_ENV, "").strip() else "engine.command in the spec"
    return Check(
        "acp_command",
        bool(found),
        f"{program}: {found or 'not found on PATH'}",
        None if found else f"install the agent or put its full path in {where}",
        None if found else "engine_missing",
    )
