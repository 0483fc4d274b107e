"""The pieces of ``holon solve`` that need no run: refs, origin forms, the envelope's spec."""

from __future__ import annotations

import pytest

from holon_core.errors import InputError
from holon_core.solve.github_api import Server
from holon_core.solve.ref import GitHubRef, parse_ref
from holon_core.solve.remote import parse_remote, push_url


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("acme/widgets#7", GitHubRef("acme", "widgets", 7)),
        ("https://github.com/acme/widgets/issues/7", GitHubRef("acme", "widgets", 7, "issue")),
        ("https://github.com/acme/widgets/pull/9", GitHubRef("acme", "widgets", 9, "pull_request")),
        (
            "https://github.com/acme/widgets/pull/9/files",
            GitHubRef("acme", "widgets", 9, "pull_request"),
        ),
        ("HTTPS://GitHub.com/acme/wid.gets/issues/1", GitHubRef("acme", "wid.gets", 1, "issue")),
    ],
)
def test_refs(text, expected):
    assert parse_ref(text, "github.com") == expected


@pytest.mark.parametrize("text", ["acme/widgets#0", "acme#7", "acme/widgets#x", "../a/b#1", ""])
def test_bad_refs(text):
    with pytest.raises(InputError, match="owner/repo#123"):
        parse_ref(text, "github.com")


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/acme/widgets",
        "https://github.com/Acme/Widgets.git",
        "https://token@github.com/acme/widgets.git/",
        "http://github.com/acme/widgets",
        "git@github.com:acme/widgets.git",
        "git@github.com:acme/widgets",
        "ssh://git@github.com/acme/widgets.git",
        "ssh://git@github.com:22/acme/widgets",
        "git://github.com/acme/widgets.git",
    ],
)
def test_origin_forms_all_name_the_repo(url):
    remote = parse_remote(url)
    assert (remote.host, remote.names()) == ("github.com", ("acme", "widgets"))


def test_local_and_other_origins():
    assert parse_remote("/srv/git/acme/widgets.git").names() == ("acme", "widgets")
    assert parse_remote("file:///srv/acme/widgets").host is None
    assert parse_remote("https://github.com/acme/widgets/extra").names() is None
    assert parse_remote("git@ghe.corp:acme/widgets.git").host == "ghe.corp"


def test_enterprise_server_and_push_url():
    server = Server.from_env({"GITHUB_SERVER_URL": "https://ghe.corp/"})
    assert (server.url, server.api_url, server.host) == (
        "https://ghe.corp",
        "https://ghe.corp/api/v3",
        "ghe.corp",
    )
    ref = parse_ref("https://ghe.corp/acme/widgets/issues/3", server.host)
    ssh = parse_remote("git@ghe.corp:acme/widgets.git")
    assert push_url(ssh, ref, server.url) == "https://ghe.corp/acme/widgets.git"
    local = parse_remote("/srv/acme/widgets.git")
    assert push_url(local, ref, server.url) == "/srv/acme/widgets.git"
    assert Server.from_env({}).api_url == "https://api.github.com"
