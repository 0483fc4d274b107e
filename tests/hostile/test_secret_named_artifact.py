"""Issue 22: a file whose name holds a credential is never listed under a name that does not
exist. The manifest is redacted, so listing it would name a path that is not on disk; it is
left out of ``artifacts`` and named (redacted) in a warning, the run needs a human."""

from __future__ import annotations

import json

from holon_core.testing import make_task
from holon_core.untrusted.redact import REPLACEMENT

from .kit import run

SECRET = "Zq8vL2xR7mW4kT9pN3sB6yH1cF5"
ENV = {"MY_API_TOKEN": SECRET, "HOLON_REPLAY_PASS_ENV": "MY_API_TOKEN"}


def test_a_secret_in_an_output_file_name_is_not_listed_as_an_artifact(
    tmp_path, assert_valid_manifest
):
    steps = [
        {"run": "echo data > {output}/report-$MY_API_TOKEN.txt; echo ok > {output}/kept.txt"},
        {"run": "mkdir {output}/dir-$MY_API_TOKEN && echo x > {output}/dir-$MY_API_TOKEN/a.txt"},
        {"say": "done"},
    ]
    task = make_task(tmp_path, replay=steps)
    result = run(task, env=ENV)
    manifest = assert_valid_manifest(result.manifest)
    assert result.exit_code == 2, result.stderr
    assert manifest["metadata"]["reason"] == "secret_in_changes"
    artifacts = manifest["artifacts"]
    assert [a for a in artifacts if not (task.output / a).is_file()] == []
    assert "kept.txt" in artifacts
    assert not any("report-" in a or "dir-" in a for a in artifacts)
    assert (task.output / f"report-{SECRET}.txt").read_text() == "data\n"  # left as written
    warnings = " ".join(manifest["metadata"]["warnings"])
    assert f"report-{REPLACEMENT}.txt" in warnings and f"dir-{REPLACEMENT}/a.txt" in warnings
    assert SECRET not in json.dumps(manifest)
    assert SECRET not in (task.output / "manifest.json").read_text()


def test_an_engine_manifest_naming_such_a_file_is_settled_the_same_way(
    tmp_path, assert_valid_manifest
):
    own = '{"artifacts": ["notes-%s.md"], "pr_url": "https://example.invalid/1"}'
    write_own = f"printf '{own}' $MY_API_TOKEN > {{output}}/manifest.json"
    steps = [{"run": f"echo n > {{output}}/notes-$MY_API_TOKEN.md; {write_own}"}, {"say": "ok"}]
    task = make_task(tmp_path, replay=steps)
    result = run(task, env=ENV)
    manifest = assert_valid_manifest(result.manifest)
    assert result.exit_code == 2, result.stderr
    assert [a for a in manifest["artifacts"] if not (task.output / a).is_file()] == []
    assert f"notes-{REPLACEMENT}.md" in " ".join(manifest["metadata"]["warnings"])
    assert manifest["pr_url"] == "https://example.invalid/1"
