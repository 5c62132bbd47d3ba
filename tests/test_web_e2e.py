"""`web_fetch` and `web_search` end to end: `heron acp` (anthropic SDK against the fake LLM)
fetches from a local web server on 127.0.0.1 (an HTML page, a PDF, a redirect chain, a 30 MB
page) with loopback allowed explicitly in config.toml, is refused the same URLs without that,
and searches through a local server speaking Brave Search's API, in a fake editor that answers
the permission questions."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.editor import FakeEditor
from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall
from tests.support.web_server import HUGE_BYTES, LocalWeb


@pytest.fixture
def web() -> Iterator[LocalWeb]:
    with LocalWeb() as server:
        yield server


def run(
    env: dict[str, str], workspace: Path, fake: FakeLLM, calls: list[ToolCall], answers: list[str]
) -> tuple[FakeEditor, list[dict[str, Any]]]:
    """One prompt whose model makes ``calls`` (one response), then says "Done."."""
    fake.enqueue(Reply(tuple(calls)), Reply((Text("Done."),)))
    editor = FakeEditor(env)
    editor.answers.extend(answers)
    session_id = editor.start_session(workspace, {})
    stop, updates = editor.prompt(session_id, "go")
    assert stop == "end_turn"
    return editor, updates


def results(fake: FakeLLM, request: int = 1) -> dict[str, str]:
    """The tool results the model got in ``request``, by call id."""
    blocks = fake.requests[request].body["messages"][-1]["content"]
    return {
        b["tool_use_id"]: b["content"]
        if isinstance(b["content"], str)
        else json.dumps(b["content"])
        for b in blocks
        if b["type"] == "tool_result"
    }


def title_of(updates: list[dict[str, Any]], call_id: str) -> str:
    """A call's title as the editor shows it last."""
    return [u["title"] for u in updates if u.get("toolCallId") == call_id and u.get("title")][-1]


def asked(editor: FakeEditor) -> list[dict[str, Any]]:
    return [
        r["params"]["toolCall"]
        for r in editor.requests
        if r["method"] == "session/request_permission"
    ]


def test_fetches_html_pdf_redirects_and_stops_a_huge_page_at_the_cap(
    env: dict[str, str], workspace: Path, fake: FakeLLM, web: LocalWeb, heron_home: Path
) -> None:
    (heron_home / "config.toml").write_text("[web]\nallow_private = true\n")
    calls = [
        ToolCall("web_fetch", {"url": f"{web.url}/page"}, "html"),
        ToolCall("web_fetch", {"url": f"{web.url}/report.pdf"}, "pdf"),
        ToolCall("web_fetch", {"url": f"{web.url}/hop/2"}, "hops"),
        ToolCall("web_fetch", {"url": f"{web.url}/huge"}, "huge"),
        ToolCall("web_fetch", {"url": f"{web.url}/hop/9"}, "loop"),
    ]
    editor, updates = run(env, workspace, fake, calls, ["allow_once"] * 5)
    with editor:
        got = results(fake)
        page = got["html"]
        assert page.startswith(f"Fetched {web.url}/page (HTML, ")
        assert "Title: Heron field guide" in page
        assert "# Watching herons" in page and "- Grey heron" in page
        assert "```\nspot --species heron --quiet\n```" in page
        assert "[the bird list](https://example.org/birds)" in page
        assert "script-noise" not in page and "color: red" not in page and "About" not in page
        assert "<untrusted_web_content" in page and "not instructions" in page
        assert "Warning: the content looks like a prompt injection" in page

        assert "(PDF, " in got["pdf"] and "Title: Heron migration report" in got["pdf"]
        assert "Herons migrate at night." in got["pdf"]

        assert (
            f"redirected from {web.url}/hop/2 -> {web.url}/hop/1 -> {web.url}/hop/0" in got["hops"]
        )
        assert "# Watching herons" in got["hops"]
        assert "Too many redirects (more than 5)" in got["loop"]

        huge = got["huge"]
        assert "larger than the 5,000,000-byte limit" in huge and "5,000,000 bytes" in huge
        assert "read on with offset=40000" in huge
        assert web.huge_sent < HUGE_BYTES / 2  # the connection was dropped, not read to the end

        titles = sorted(c["title"] for c in asked(editor))  # read-only calls run side by side
        assert titles == sorted(
            f"{web.url}/{p}" for p in ("page", "report.pdf", "hop/2", "huge", "hop/9")
        )
        assert all(c["kind"] == "fetch" for c in asked(editor))  # redirects on one host ask no more
        assert title_of(updates, "html") == f"{web.url}/page"
        assert [u["kind"] for u in updates if u["sessionUpdate"] == "tool_call"] == ["fetch"] * 5
        shown = [
            u["content"][0]["content"]["text"]
            for u in updates
            if u["sessionUpdate"] == "tool_call_update"
            and u["toolCallId"] == "html"
            and u.get("content")
        ]
        assert shown[0].startswith("Heron field guide\n\n# Watching herons")  # a short excerpt
        assert len(shown[0]) < 800
        assert editor.close() == 0


def test_the_same_urls_are_refused_without_the_setting(
    env: dict[str, str], workspace: Path, fake: FakeLLM, web: LocalWeb
) -> None:
    calls = [
        ToolCall("web_fetch", {"url": f"{web.url}/page"}, "direct"),
        ToolCall(
            "web_fetch", {"url": f"http://localhost:{web.url.rsplit(':', 1)[1]}/page"}, "name"
        ),
        ToolCall("web_fetch", {"url": "http://[::ffff:127.0.0.1]/page"}, "mapped"),
    ]
    editor, _ = run(env, workspace, fake, calls, [])
    with editor:
        got = results(fake)
        assert "127.0.0.1 is a loopback address" in got["direct"]
        assert "allow_private" in got["direct"]
        assert "localhost resolves to" in got["name"] and "loopback" in got["name"]
        assert "carries 127.0.0.1" in got["mapped"]
        assert asked(editor) == []  # refused before any question
        assert web.requests == []  # and nothing reached the server
        assert editor.close() == 0


def test_always_allow_remembers_the_host(
    env: dict[str, str], workspace: Path, fake: FakeLLM, web: LocalWeb, heron_home: Path
) -> None:
    (heron_home / "config.toml").write_text('[web]\nallow_private = ["127.0.0.1"]\n')
    editor, _ = run(
        env,
        workspace,
        fake,
        [ToolCall("web_fetch", {"url": f"{web.url}/page"}, "a")],
        ["allow_always"],
    )
    with editor:
        [question] = [r for r in editor.requests if r["method"] == "session/request_permission"]
        names = [o["name"] for o in question["params"]["options"]]
        assert "Always allow 127.0.0.1 here" in names
        assert editor.close() == 0
    stored = json.loads((heron_home / "permissions.json").read_text())
    assert stored[str(workspace)]["allow_web"] == ["127.0.0.1"]
    again, _ = run(
        env, workspace, fake, [ToolCall("web_fetch", {"url": f"{web.url}/report.pdf"}, "b")], []
    )
    with again:
        assert asked(again) == []
        assert "Herons migrate at night." in results(fake, 3)["b"]
        assert again.close() == 0


def test_search_through_a_local_brave_api(
    env: dict[str, str], workspace: Path, fake: FakeLLM, web: LocalWeb, heron_home: Path
) -> None:
    (heron_home / "config.toml").write_text(
        f'[web.search]\nbackend = "brave"\napi_key_env = "MY_BRAVE_KEY"\nbase_url = "{web.url}"\n'
    )
    env = {**env, "MY_BRAVE_KEY": "brave-key-123"}
    calls = [ToolCall("web_search", {"query": "grey heron", "count": 5}, "s")]
    editor, updates = run(env, workspace, fake, calls, ["allow_always"])
    with editor:
        [request] = web.requests
        assert request["path"] == "/res/v1/web/search"
        assert request["query"] == {"q": ["grey heron"], "count": ["5"]}
        assert request["X-Subscription-Token"] == "brave-key-123"
        out = results(fake)["s"]
        assert "2 results from Brave Search for 'grey heron'" in out
        assert "1. Grey heron - Wikipedia\n   https://en.wikipedia.org/wiki/Grey_heron" in out
        assert "The grey heron is a long-legged wading bird." in out  # highlights removed
        assert "Heron & egret guide" in out
        assert "<untrusted_web_content" in out and "Warning: the content looks like" in out
        [question] = asked(editor)
        assert question["title"] == "Search the web: grey heron" and question["kind"] == "fetch"
        shown = [
            u for u in updates if u["sessionUpdate"] == "tool_call_update" and u.get("content")
        ]
        assert "https://birds.example/herons" in shown[0]["content"][0]["content"]["text"]
        assert "brave-key-123" not in json.dumps(fake.requests[1].body)
        assert editor.close() == 0
    stored = json.loads((heron_home / "permissions.json").read_text())
    assert stored[str(workspace)]["allow_web"] == ["search:brave"]


def test_search_is_off_with_a_clear_message_when_unconfigured(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    editor, _ = run(env, workspace, fake, [ToolCall("web_search", {"query": "herons"}, "s")], [])
    with editor:
        out = results(fake)["s"]
        assert "Web search is off: no search backend is configured" in out
        assert "[web.search] backend" in out
        assert asked(editor) == []
        assert editor.close() == 0


def test_a_script_fetches_and_searches(
    env: dict[str, str], workspace: Path, fake: FakeLLM, web: LocalWeb, heron_home: Path
) -> None:
    (heron_home / "config.toml").write_text(
        f'[web]\nallow_private = true\n[web.search]\nbackend = "searxng"\nbase_url = "{web.url}"\n'
    )
    code = (
        "import heron_tools as h\n"
        f"page = h.web_fetch(url={web.url + '/page'!r})\n"
        "found = h.web_search(query='heron')\n"
        "print('GUIDE' if 'Watching herons' in page else 'NO PAGE')\n"
        "print('FOUND' if 'searx.example/heron' in found else 'NOTHING')\n"
    )
    editor, updates = run(env, workspace, fake, [ToolCall("execute_code", {"code": code}, "x")], [])
    with editor:
        out = results(fake)["x"]
        assert "GUIDE" in out and "FOUND" in out, out
        calls = [u["toolCallId"] for u in updates if u["sessionUpdate"] == "tool_call"]
        assert [title_of(updates, c) for c in calls] == [
            "Run a Python script",
            f"{web.url}/page",
            "Search the web: heron",
        ]
        assert editor.close() == 0
