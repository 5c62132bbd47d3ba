"""A fetched response as text the model reads: HTML as Markdown, PDF as its pages' text, plain
text (and JSON, XML, source code) as it is. Runs in a worker thread; pure but for the parsers.

HTML goes through ``html_to_markdown`` (a Rust converter, ~30 ms to import, no Python
dependencies): it drops scripts, styles, navigation and forms, and keeps headings, lists,
links, tables and fenced code blocks, which is what documentation pages are made of. PDFs go
through ``pypdf`` (pure Python, ~90 ms to import). Both are imported only when a page needs them.
"""

from __future__ import annotations

import codecs
import io

from msgspec import Struct

from agent_core.errors import ToolError

HTML = frozenset({"text/html", "application/xhtml+xml"})
TEXT = frozenset(
    {
        "application/json",
        "application/xml",
        "application/javascript",
        "application/x-javascript",
        "application/ecmascript",
        "application/toml",
        "application/yaml",
        "application/x-yaml",
        "application/x-sh",
        "application/sql",
        "application/graphql",
    }
)
UNKNOWN = frozenset({"", "application/octet-stream", "binary/octet-stream"})


class Page(Struct, frozen=True):
    form: str  # "HTML", "PDF" or "text"
    text: str
    title: str | None = None


def readable(body: bytes, content_type: str, charset: str | None, *, limit: int) -> Page:
    """``body`` as text; ``limit``: characters needed, so a long PDF stops being read there.
    Raises ``ToolError`` for what is not a page (images, archives) or cannot be read."""
    form = form_of(body, content_type)
    if form == "PDF":
        return _pdf(body, limit)
    text = decode(body, charset)
    if form == "HTML":
        return _html(text)
    if form == "text":
        return Page("text", text)
    raise ToolError(
        f"The response is {content_type or 'of an unknown type'} ({len(body):,} bytes), "
        "not something web_fetch reads (HTML, PDF or text)."
    )


def form_of(body: bytes, content_type: str) -> str | None:
    """HTML, PDF or text, by the declared type or, when there is none, by the first bytes."""
    start = body[:512].lstrip().lower()
    if content_type == "application/pdf" or (content_type in UNKNOWN and start[:5] == b"%pdf-"):
        return "PDF"
    if content_type in HTML or (
        content_type in UNKNOWN and start.startswith((b"<!doctype html", b"<html"))
    ):
        return "HTML"
    if (
        content_type.startswith("text/")
        or content_type in TEXT
        or content_type.endswith(("+json", "+xml"))
        or (content_type in UNKNOWN and b"\x00" not in body[:4096])
    ):
        return "text"
    return None


def decode(body: bytes, charset: str | None) -> str:
    """Text in the declared charset, else UTF-8, else Windows-1252 (what unlabelled legacy pages
    use). A character cut in two at the byte cap is dropped."""
    if charset:
        try:
            return codecs.getincrementaldecoder(charset)(errors="replace").decode(body)
        except LookupError:
            pass
    try:
        return codecs.getincrementaldecoder("utf-8")().decode(body, final=False)
    except UnicodeDecodeError:
        return body.decode("cp1252", errors="replace")


def _html(text: str) -> Page:
    from html_to_markdown import ConversionOptions, convert

    result = convert(text, ConversionOptions(extract_metadata=True))
    markdown = result.content or ""
    if markdown.startswith("---\n") and (end := markdown.find("\n---\n", 4)) != -1:
        markdown = markdown[end + 5 :]  # the metadata block; the title is taken below
    title = result.metadata.document.title if result.metadata.document else None
    return Page("HTML", markdown.strip(), (title or "").strip() or None)


def _pdf(body: bytes, limit: int) -> Page:
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(body))
        pages: list[str] = []
        size = 0
        for number, page in enumerate(reader.pages, 1):
            text = page.extract_text().strip()
            pages.append(f"[page {number} of {len(reader.pages)}]\n{text}")
            size += len(text)
            if size > limit:
                break
        title = reader.metadata.title if reader.metadata else None
    except (PyPdfError, ValueError, KeyError, TypeError) as exc:
        raise ToolError(f"The PDF could not be read: {exc or type(exc).__name__}.") from None
    return Page("PDF", "\n\n".join(pages), str(title).strip() if title else None)
