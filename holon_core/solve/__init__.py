"""``holon solve``: ref parsing, the clone check, the request envelope and the generated spec."""

from __future__ import annotations

from holon_core.solve.github_api import Server, find_token, lookup, pull_head
from holon_core.solve.ref import GitHubRef, parse_ref
from holon_core.solve.remote import check_clean, check_clone, check_head, parse_remote, push_url
from holon_core.solve.request import envelope, write_task

__all__ = [
    "GitHubRef",
    "Server",
    "check_clean",
    "check_clone",
    "check_head",
    "envelope",
    "find_token",
    "lookup",
    "parse_ref",
    "parse_remote",
    "pull_head",
    "push_url",
    "write_task",
]
