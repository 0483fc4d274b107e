"""The environment the suite gives holon-agent: the few variables passed, the planted secrets.

Shared by the one-shot runs (:mod:`harness`) and the serve session (:mod:`serve_session`).
"""

from __future__ import annotations

import os

#: Variables of the test process that reach holon-agent (everything else is set explicitly).
#: PYTHONPATH lets ``HOLON_PLUGINS`` name an adapter that is not installed (a checkout).
PASSED = (
    "PATH",
    "LANG",
    "PYTHONPATH",
    "HOLON_PLUGINS",
    "HOLON_LOAD_PLUGINS",
    "HOLON_DISABLE_PLUGINS",
)
#: Unrelated secrets in holon-agent's environment: none may reach the engine, its tools, a
#: model request or the output (HOLON-HERM-001, HOLON-SEC-001).
PLANTED_SECRETS = {
    "AWS_SECRET_ACCESS_KEY": "HOLONPLANTED-aws-wJalrXUtnFEMI-K7MDENG-bPxRfiCY",
    "GITHUB_TOKEN": "ghp_HOLONPLANTEDgithubtoken0123456789abcdef",
    "ACME_DEPLOY_TOKEN": "HOLONPLANTED-custom-acme-deploy-7c1e",
}


def agent_base_env() -> dict[str, str]:
    from holon_core.engine.binaries import managed_engine_dir

    env = {k: os.environ[k] for k in PASSED if k in os.environ}
    env |= {k: v for k, v in os.environ.items() if k.startswith("HOLON_") and k.endswith("_BIN")}
    # An adapter configured by its environment (the generic acp engine's HOLON_ACP_COMMAND):
    # the variables HOLON_CONFORMANCE_PASS_ENV names reach holon-agent too.
    for name in os.environ.get("HOLON_CONFORMANCE_PASS_ENV", "").replace(",", " ").split():
        if name in os.environ:
            env[name] = os.environ[name]
    env["HOLON_ENGINES_DIR"] = str(managed_engine_dir(os.environ))
    env.setdefault("LANG", "C.UTF-8")
    return env
