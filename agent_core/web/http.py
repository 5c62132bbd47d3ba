"""HTTP for ``web_fetch``: a GET that reaches public addresses only, follows redirects itself,
and stops reading at a byte cap.

Where a request may go is decided on the address it connects to, not on the URL's text. Each
hop's host is resolved once (``resolve``), every address it resolves to is judged
(``safety.addresses``), and the connection is then made to the address that was judged: the URL
given to the HTTP client carries that IP, while the ``Host`` header and, for HTTPS, the TLS
server name (SNI, and with it the certificate check) carry the host name. A DNS answer that
changes between the check and the connection (DNS rebinding) therefore changes nothing: no
second lookup happens. Redirects are not left to the client: each ``Location`` is resolved and
judged like the first URL, a hop to another host is approved like a new fetch (``approve``),
and at most ``max_redirects`` are followed.

Proxies from the environment are not used (``trust_env=False``): a proxy would resolve the name
itself, out of reach of the check. The body is read as a stream and the connection is dropped
once ``max_bytes`` (after decompression) have arrived, so a huge page, or a small compressed
one that inflates, never sits in memory whole.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Awaitable, Callable
from urllib.parse import SplitResult, urljoin, urlsplit

import anyio
import httpx2
from msgspec import Struct

from agent_core.errors import ToolError
from agent_core.safety.addresses import IPAddress, exempt, why_refused
from agent_core.web.settings import WebSettings

USER_AGENT = "Heron/1 (coding agent; +https://github.com/heron-agent/heron)"
ACCEPT = "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.9,*/*;q=0.5"
REDIRECTS = (301, 302, 303, 307, 308)


class Target(Struct, frozen=True):
    """A URL whose host was resolved and judged: where its request will connect."""

    url: str
    scheme: str
    host: str  # ASCII (IDNA), lower case, without brackets
    port: int
    address: IPAddress
    path: str  # path and query, as sent

    @property
    def host_header(self) -> str:
        shown = f"[{self.host}]" if ":" in self.host else self.host
        default = {"http": 80, "https": 443}[self.scheme]
        return shown if self.port == default else f"{shown}:{self.port}"

    @property
    def pinned_url(self) -> str:
        ip = f"[{self.address}]" if self.address.version == 6 else str(self.address)
        return f"{self.scheme}://{ip}:{self.port}{self.path}"


class Fetched(Struct, frozen=True):
    url: str  # after redirects
    status: int
    content_type: str  # the media type, lower case, without parameters
    charset: str | None
    body: bytes
    truncated: bool  # the response was longer than ``max_bytes``: only its start is here
    redirects: tuple[str, ...]  # the URLs that redirected, in order


Approve = Callable[[Target], Awaitable[None]]  # raises ToolError when the user refuses


def split(url: str) -> SplitResult:
    """``url`` checked to be an absolute http(s) URL with a host."""
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 (a bad port raises here)
    except ValueError as exc:
        raise ToolError(f"Not a valid URL: {url!r} ({exc}).") from None
    if parts.scheme not in ("http", "https"):
        raise ToolError(f"Only http and https URLs can be fetched, not {url!r}.")
    if not parts.hostname:
        raise ToolError(f"The URL {url!r} has no host.")
    return parts


async def resolve(url: str, web: WebSettings) -> Target:
    """Where ``url`` would connect, once its host's addresses are judged; raises ``ToolError``
    for a URL that is not http(s), a host that does not resolve, or an address not allowed."""
    parts = split(url)
    host = _ascii_host(parts.hostname or "")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    addresses = await _addresses(host, port)
    for address in addresses:
        if (why := why_refused(address)) and not _allowed(host, address, web):
            where = "" if host == str(address) else f"{host} resolves to {address}, and "
            raise ToolError(
                f"Refused to fetch {url}: {where}{why}. Heron fetches only public "
                "addresses, so that a page cannot make it reach the local network; the user "
                "can allow more with [web] allow_private in config.toml."
            )
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(url.strip(), parts.scheme, host, port, addresses[0], path)


async def fetch(first: Target, web: WebSettings, approve: Approve) -> Fetched:
    """GET ``first`` (already approved), following redirects; each new host is approved."""
    redirects: list[str] = []
    target = first
    async with httpx2.AsyncClient(
        trust_env=False, follow_redirects=False, timeout=httpx2.Timeout(web.timeout)
    ) as client:
        while True:
            try:
                with anyio.fail_after(web.timeout):
                    response = await _send(client, target)
                    try:
                        location = response.headers.get("location")
                        if response.status_code not in REDIRECTS or not location:
                            return await _read(response, target, web, tuple(redirects))
                    finally:
                        await response.aclose()
            except TimeoutError:
                raise ToolError(f"{target.url} took longer than {web.timeout:g} s.") from None
            if len(redirects) >= web.max_redirects:
                raise ToolError(
                    f"Too many redirects (more than {web.max_redirects}) from {first.url}."
                )
            redirects.append(target.url)
            following = await resolve(urljoin(target.url, location), web)
            if following.host != target.host:
                await approve(following)
            target = following


async def _send(client: httpx2.AsyncClient, target: Target) -> httpx2.Response:
    headers = {"Host": target.host_header, "User-Agent": USER_AGENT, "Accept": ACCEPT}
    extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
    request = client.build_request("GET", target.pinned_url, headers=headers, extensions=extensions)
    try:
        return await client.send(request, stream=True)
    except httpx2.TimeoutException:
        raise ToolError(f"{target.url} did not answer within {client.timeout.read:g} s.") from None
    except httpx2.HTTPError as exc:
        raise ToolError(f"Could not fetch {target.url}: {exc or type(exc).__name__}.") from None


async def _read(
    response: httpx2.Response, target: Target, web: WebSettings, redirects: tuple[str, ...]
) -> Fetched:
    if response.status_code >= 400:
        raise ToolError(
            f"{target.url} answered HTTP {response.status_code} {response.reason_phrase}."
        )
    body = bytearray()
    truncated = False
    try:
        async for chunk in response.aiter_bytes():
            room = web.max_bytes - len(body)
            if len(chunk) > room:
                body += chunk[:room]
                truncated = True
                break
            body += chunk
    except httpx2.HTTPError as exc:
        raise ToolError(f"Reading {target.url} failed: {exc or type(exc).__name__}.") from None
    media, _, parameters = response.headers.get("content-type", "").partition(";")
    return Fetched(
        target.url,
        response.status_code,
        media.strip().lower(),
        _charset(parameters),
        bytes(body),
        truncated,
        redirects,
    )


def _charset(parameters: str) -> str | None:
    for parameter in parameters.split(";"):
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'")
    return None


def _ascii_host(host: str) -> str:
    host = host.lower().rstrip(".")
    try:
        return host.encode("idna").decode("ascii") if not host.isascii() else host
    except UnicodeError:
        raise ToolError(f"The host name {host!r} is not valid.") from None


async def _addresses(host: str, port: int) -> list[IPAddress]:
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    try:
        found = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise ToolError(f"Cannot resolve {host}: {exc.strerror or exc}.") from None
    addresses: list[IPAddress] = []
    for _family, _type, _proto, _name, sockaddr in found:
        address = ipaddress.ip_address(str(sockaddr[0]).partition("%")[0])
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise ToolError(f"Cannot resolve {host}.")
    return addresses


def _allowed(host: str, address: IPAddress, web: WebSettings) -> bool:
    return web.allow_private or exempt(host, address, web.allowed_hosts)
