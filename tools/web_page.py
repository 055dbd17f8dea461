"""WebFetch's page side: bytes of a response to text for the model (HTML to markdown).

markdownify was chosen over trafilatura and readabilipy: it is small (BeautifulSoup and
nothing native), maintained, and converts the whole page faithfully (headings, links, code
blocks, tables), which matters for documentation pages; trafilatura's main-text extraction
drops code samples and navigation a coding agent often wants, and pulls in lxml and a dozen
more packages. Scripts, styles and other invisible elements are removed before converting.
"""

from __future__ import annotations

import re

from tools.base import ToolError
from tools.textfile import human_size

_INVISIBLE = ("script", "style", "noscript", "template", "svg", "iframe", "head", "canvas")
_TEXT_TYPES = (
    "application/json",
    "application/xml",
    "application/javascript",
    "application/x-javascript",
    "application/ld+json",
    "application/x-yaml",
    "application/yaml",
    "application/toml",
)
_BLANK_RUNS = re.compile(r"\n{3,}")


_UNTYPED = ("", "application/octet-stream", "binary/octet-stream", "application/unknown")
"""Types that say nothing about the body: it is sniffed, as a browser does."""
_HTML_STARTS = re.compile(
    rb"<(?:!doctype\s+html|html|head|body|script|iframe|h1|div|font|table|a|style|title|b|br|p"
    rb"|!--)(?:[\s>/]|--)",
    re.IGNORECASE,
)
"""How an HTML document may begin (the WHATWG sniffing algorithm's tags)."""


def is_html(content_type: str, body: bytes) -> bool:
    """Whether the response is HTML: by its type, or, when the type says nothing (none, or
    ``application/octet-stream`` as some servers send for every file), by how it begins."""
    if content_type in ("text/html", "application/xhtml+xml"):
        return True
    if content_type not in _UNTYPED:
        return False
    head = body[:1024].removeprefix(b"\xef\xbb\xbf").lstrip()
    return _HTML_STARTS.match(head) is not None


def is_text(content_type: str, body: bytes) -> bool:
    """Whether the response is text that can be shown as it is (by its type; an untyped
    body when it has no NUL byte and its start decodes as UTF-8)."""
    if content_type.startswith("text/") or content_type in _TEXT_TYPES:
        return True
    if content_type.endswith(("+json", "+xml")):
        return True
    if content_type not in _UNTYPED:
        return False
    start = body[:8192]
    if b"\x00" in start:
        return False
    try:
        start.decode("utf-8")
    except UnicodeDecodeError as exc:  # a character cut at the sample's end is still text
        return exc.start >= len(start) - 3 and len(start) == 8192
    return True


def decode(body: bytes, charset: str | None) -> str:
    """The body as text, in its charset when it is a known one, else UTF-8 (lossy)."""
    try:
        return body.decode(charset or "utf-8", "replace")
    except LookupError:
        return body.decode("utf-8", "replace")


def html_to_markdown(html: str) -> str:
    """Markdown of an HTML page with its invisible parts removed."""
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(list(_INVISIBLE)):
        tag.decompose()
    text = MarkdownConverter(heading_style="ATX", bullets="-").convert_soup(soup)
    return _BLANK_RUNS.sub("\n\n", text).strip()


def page_text(content_type: str, charset: str | None, body: bytes) -> str:
    """What the model may read of a response body.

    Raises:
        ToolError: the body is binary (an image, an archive, a PDF ...): it is not shown.
    """
    if is_html(content_type, body):
        return html_to_markdown(decode(body, charset))
    if is_text(content_type, body):
        return decode(body, charset).strip()
    raise ToolError(
        f"the response is binary ({content_type or 'no content type'}, "
        f"{human_size(len(body))}); WebFetch only reads text and HTML pages. Download it with "
        "Bash (curl -o) if you need the file."
    )
