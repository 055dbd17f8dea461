"""WebFetch's HTTP side: which URLs it fetches, how it follows redirects, and its caps.

- ``http://`` is upgraded to ``https://`` except for loopback and private-network hosts (a
  local dev server must stay fetchable; it rarely speaks TLS).
- Redirects are followed only on the same host (``www.`` added or removed counts as the same);
  a redirect to another host is returned to the caller, who tells the model: the other host
  may need its own permission.
- The body is read up to ``max_bytes`` (the rest is cut, with a note), and the whole fetch
  (connect, redirects, body) has one deadline. Cancelling the awaiting task closes the
  connection at once (Esc).

It uses ``httpx2``, the HTTP stack the anthropic SDK already installs.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit, urlunsplit

from tools.base import ToolError

MAX_URL_CHARS = 2000
MAX_REDIRECTS = 10
USER_AGENT = "eddy-webfetch/0.1 (+https://github.com/; a terminal coding agent)"


@dataclass(frozen=True)
class Page:
    """A fetched page.

    Attributes:
        url: the final URL (after same-host redirects).
        status: the HTTP status.
        content_type: the media type without parameters, lower case ("" if none).
        charset: the charset parameter, if any.
        body: the bytes read (at most the cap).
        truncated: the body was longer than the cap.
    """

    url: str
    status: int
    content_type: str
    charset: str | None
    body: bytes
    truncated: bool


@dataclass(frozen=True)
class Redirect:
    """A redirect to another host, not followed."""

    url: str
    location: str
    status: int


def is_private_host(host: str) -> bool:
    """Whether ``host`` is loopback or on a private network (``localhost``, 10/8, ::1, ...)."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith((".localhost", ".local", ".internal")):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_loopback or ip.is_private or ip.is_link_local


_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})
"""The dots IDNA reads as label separators (as httpx and browsers do): a host written with
one must be judged as the host it names."""
_LABEL = re.compile(r"[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?")


def canonical_host(host: str) -> str | None:
    """The one spelling of ``host`` that both the permission rules and the fetch use: lower
    case, IDNA (punycode) ASCII, no trailing dot; an IP address in its compact form. None when
    it is not a host name (``%``, ``\\``, ``;`` in it, empty labels, ...).

    Why: ``example.com.``, ``EXAMPLE.com``, ``example\u3002com`` and ``xn--...`` name the same
    host as their plain spelling, so a ``WebFetch(domain:...)`` rule compared as raw text could
    be stepped around (a deny rule missed, an allow rule matched by a host that is not it).
    """
    host = host.strip().strip("[]").translate(_DOTS)
    if host.endswith("."):
        host = host[:-1]
    try:
        return ipaddress.ip_address(host).compressed
    except ValueError:
        pass
    try:
        ascii_host = host.encode("idna").decode("ascii").lower()
    except (UnicodeError, ValueError):
        return None
    labels = ascii_host.split(".")
    if len(ascii_host) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        return None
    return ascii_host


def url_host(url: str) -> str:
    """The canonical host of ``url`` (see :func:`canonical_host`), or "" if it has none."""
    try:
        return canonical_host(urlsplit(url.strip()).hostname or "") or ""
    except ValueError:
        return ""


def normalise_url(raw: str) -> str:
    """The URL to fetch: checked, and upgraded to https unless the host is private.

    Raises:
        ToolError: not an absolute http(s) URL, too long, or with credentials in it.
    """
    if not isinstance(raw, str) or not raw.strip():
        raise ToolError("url must be a non-empty string")
    url = raw.strip()
    if len(url) > MAX_URL_CHARS:
        raise ToolError(f"url is longer than {MAX_URL_CHARS} characters")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ToolError(f"{url} is not a fully-formed http or https URL (e.g. https://host/path)")
    if parts.username or parts.password:
        raise ToolError("URLs with a user name or password in them are not fetched")
    host = canonical_host(parts.hostname)
    try:
        port = parts.port
    except ValueError:
        port, host = None, None
    if host is None:
        raise ToolError(f"{url} does not name a valid host")
    # the fetch goes to the very host the rules judged (url_host), nothing httpx reads otherwise
    netloc = f"[{host}]" if ":" in host else host
    parts = parts._replace(netloc=netloc + (f":{port}" if port is not None else ""))
    if parts.scheme == "http" and not is_private_host(host):
        parts = parts._replace(scheme="https")
    return urlunsplit(parts)


def _bare(host: str) -> str:
    host = host.lower()
    return host[4:] if host.startswith("www.") else host


def same_host(a: str, b: str) -> bool:
    """Whether two URLs name the same host (``www.`` aside); ports must match too."""
    pa, pb = urlsplit(a), urlsplit(b)
    return _bare(pa.hostname or "") == _bare(pb.hostname or "") and pa.port == pb.port


def _media(content_type: str) -> tuple[str, str | None]:
    main, _, params = content_type.partition(";")
    charset = None
    for param in params.split(";"):
        key, _, value = param.strip().partition("=")
        if key.lower() == "charset" and value:
            charset = value.strip("\"' ")
    return main.strip().lower(), charset


async def fetch(url: str, *, max_bytes: int, timeout: float) -> Page | Redirect:
    """GET ``url`` under the rules of the module docstring.

    Raises:
        ToolError: the fetch failed (connection, TLS, timeout, too many redirects).
    """
    import httpx2

    # trust_env: honour the user's proxy settings; the SDK's client does the same
    client = httpx2.AsyncClient(
        follow_redirects=False,
        timeout=httpx2.Timeout(timeout),
        headers={"User-Agent": USER_AGENT, "Accept": "text/html, text/*;q=0.9, */*;q=0.5"},
    )
    try:
        async with asyncio.timeout(timeout):
            return await _follow(client, url, max_bytes)
    except TimeoutError:
        raise ToolError(f"fetching {url} took longer than {timeout:g} s; it was stopped") from None
    except httpx2.HTTPError as exc:
        raise ToolError(f"could not fetch {url}: {type(exc).__name__}: {exc}") from None
    finally:
        # closing must not be skipped by a cancel (Esc): shield it
        await asyncio.shield(client.aclose())


async def _follow(client: object, url: str, max_bytes: int) -> Page | Redirect:
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        async with client.stream("GET", current) as response:  # type: ignore[attr-defined]
            location = response.headers.get("location")
            if response.status_code in (301, 302, 303, 307, 308) and location:
                target = normalise_url(urljoin(current, location))
                if not same_host(current, target):
                    return Redirect(current, target, response.status_code)
                current = target
                continue
            body = bytearray()
            truncated = False
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > max_bytes:
                    del body[max_bytes:]
                    truncated = True
                    break
            media, charset = _media(response.headers.get("content-type", ""))
            return Page(current, response.status_code, media, charset, bytes(body), truncated)
    raise ToolError(f"{url} redirected more than {MAX_REDIRECTS} times; stopped")
