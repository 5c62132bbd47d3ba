"""Tools the model can call: one per module, assembled into the toolset explicitly."""

from __future__ import annotations

from agent_core.tools.base import Tool
from agent_core.tools.clarify import Clarify
from agent_core.tools.diagnostics import DiagnosticsTool
from agent_core.tools.edit_file import EditFile
from agent_core.tools.find_files import FindFiles
from agent_core.tools.read_file import ReadFile
from agent_core.tools.search import Search
from agent_core.tools.session_search import SessionSearch
from agent_core.tools.switch_mode import SwitchMode
from agent_core.tools.terminal import ManageProcess, RunCommand
from agent_core.tools.todo import Todo
from agent_core.tools.web_fetch import WebFetch
from agent_core.tools.web_search import WebSearch
from agent_core.tools.write_file import WriteFile
from agent_core.web.settings import WebSettings


def default_toolset(web: WebSettings | None = None) -> dict[str, Tool]:
    tools: list[Tool] = [
        ReadFile(),
        EditFile(),
        WriteFile(),
        Search(),
        FindFiles(),
        RunCommand(),
        ManageProcess(),
        Todo(),
        SwitchMode(),
        SessionSearch(),
        DiagnosticsTool(),
        Clarify(),
        WebFetch(web),
        WebSearch(web),
    ]
    return {tool.name: tool for tool in tools}
