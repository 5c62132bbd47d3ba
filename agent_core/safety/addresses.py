"""Which network addresses a fetch the model asked for may reach.

A prompt-injected page can ask the agent to fetch ``http://192.168.1.1/admin`` or the cloud
metadata service at ``169.254.169.254``: requests from the user's machine reach what the
internet cannot. So only globally routable unicast addresses are allowed, unless the user
allows more in ``[web]``. Addresses that carry an IPv4 address inside an IPv6 one (IPv4-mapped
``::ffff:a.b.c.d``, NAT64 ``64:ff9b::/96``, 6to4, Teredo) are judged by the IPv4 address too.
Pure.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
NAT64 = ipaddress.ip_network("64:ff9b::/96")


def why_refused(address: IPAddress) -> str | None:
    """Why ``address`` is not a public one, or None when it is."""
    if isinstance(address, ipaddress.IPv6Address) and (inner := embedded_ipv4(address)):
        if why := why_refused(inner):
            return f"{address} carries {inner}, and {why}"
        if address.ipv4_mapped is not None or address in NAT64:
            return None  # the IPv4 address is what is reached (DNS64 gives these for every host)
    if address.is_unspecified:
        return f"{address} is the unspecified address"
    if address.is_loopback:
        return f"{address} is a loopback address (this machine)"
    if address.is_link_local:
        return f"{address} is a link-local address (the local network, cloud metadata)"
    if address.is_multicast:
        return f"{address} is a multicast address"
    if address.is_reserved:
        return f"{address} is a reserved address"
    if address.is_private or not address.is_global:
        return f"{address} is a private or shared address (a local network)"
    return None


def embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one stands for, if it stands for one."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    return None


def exempt(host: str, address: IPAddress, allowed: Iterable[str]) -> bool:
    """Whether the user allows ``host`` (as it was written in the URL) at ``address``: an entry
    names the host, or is the address, or a network (CIDR) that holds it."""
    host = host.lower().rstrip(".")
    for entry in allowed:
        entry = entry.strip().lower().rstrip(".")
        if entry == host:
            return True
        try:
            network = ipaddress.ip_network(entry, strict=False)
        except ValueError:
            continue
        mapped = embedded_ipv4(address) if isinstance(address, ipaddress.IPv6Address) else None
        if address in network or (mapped is not None and mapped in network):
            return True
    return False
