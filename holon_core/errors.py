"""One error vocabulary: every user-facing error says what went wrong and what to do next.

``reason`` is the normalized reason code that lands in ``manifest.metadata.reason``.
"""

from __future__ import annotations


class HolonError(Exception):
    """Base of every error holon reports to a user."""

    reason = "holon_error"

    def __init__(self, message: str, *, hint: str | None = None, reason: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        if reason is not None:
            self.reason = reason

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class SpecError(HolonError):
    """spec.yaml is missing, unreadable or invalid."""

    reason = "invalid_spec"


class InputError(HolonError):
    """An input, workspace or output path is missing or unusable."""

    reason = "invalid_input"


class EngineNotFound(HolonError):
    """No adapter is registered under the requested engine name."""

    reason = "unknown_engine"


class EngineNotInstalled(HolonError):
    """The adapter is installed but its engine binary cannot be found or run."""

    reason = "engine_missing"


class SkillError(HolonError):
    """A skill directory is missing or its SKILL.md is invalid."""

    reason = "invalid_skill"


class PluginError(HolonError):
    """A plugin failed to load or registered something invalid."""

    reason = "plugin_error"


class WorkspaceError(HolonError):
    """The workspace baseline or diff could not be produced."""

    reason = "workspace_error"
