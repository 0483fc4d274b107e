"""Which model a serve turn runs with: each installed adapter's ``accepts_model`` and the
rule around it (``--model-map`` first, the server's ``--model``, else ignored with a warning)."""

from __future__ import annotations

import pytest

from holon_core.hooks.manager import load_plugins
from holon_core.serve.model_choice import choose_model

#: Per engine: names its CLI takes, and names a generic client sends that it does not.
NAMES = {
    "claude": (
        ["claude-sonnet-4-5", "sonnet", "opus", "sonnet[1m]"],
        ["gpt-4o-mini", "gemini-2.5-pro"],
    ),
    "codex": (
        ["gpt-4o-mini", "gpt-5.5", "o3-mini", "codex-mini-latest"],
        ["claude-sonnet-4-5", "sonnet"],
    ),
    "gemini": (["gemini-2.5-pro", "gemini-2.5-flash"], ["gpt-4o-mini", "claude-sonnet-4-5"]),
    "opencode": (
        ["claude-sonnet-4-5", "anthropic/claude-haiku-4-5"],
        ["gpt-4o-mini", "anthropic/gpt-4o-mini", "openai/gpt-4o-mini"],
    ),
    "replay": ([], ["gpt-4o-mini", "replay", "claude-sonnet-4-5"]),
}


@pytest.mark.parametrize("engine", sorted(NAMES))
def test_a_client_model_reaches_the_engine_only_when_it_takes_it(engine):
    adapter = load_plugins().get_engine(engine)
    taken, refused = NAMES[engine]
    for name in taken:
        assert choose_model(name, adapter, default=None, model_map={}).model == name
    for name in refused:
        choice = choose_model(name, adapter, default="srv-model", model_map={})
        assert choice.model == "srv-model", name
        assert choice.warning and repr(name) in choice.warning and engine in choice.warning


def test_the_map_and_the_server_model_come_first():
    adapter = load_plugins().get_engine("replay")
    mapped = choose_model("gpt-4o-mini", adapter, default=None, model_map={"gpt-4o-mini": "m1"})
    assert (mapped.model, mapped.warning) == ("m1", None)
    same = choose_model("srv", adapter, default="srv", model_map={})
    assert (same.model, same.warning) == ("srv", None)
    none = choose_model(None, adapter, default=None, model_map={})
    assert (none.model, none.warning) == (None, None)
    ignored = choose_model("gpt-4o-mini", adapter, default=None, model_map={})
    assert ignored.model is None and "the engine's default model" in (ignored.warning or "")
