"""Offline builds: skip intersphinx, and say so, when its hosts are away.

Without this, an offline build waits for each inventory and then fails
``-W`` on the unreachable ones.
"""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

from sphinx.util import logging

logger = logging.getLogger(__name__)


def _online(url: str, timeout: float = 3.0) -> bool:
    try:
        host = urlsplit(url).hostname
        socket.create_connection((host, 443), timeout=timeout).close()
    except OSError:
        return False
    return True


def _skip_intersphinx_offline(app, config) -> None:
    mapping = config.intersphinx_mapping
    if mapping and not _online(next(iter(mapping.values()))[0]):
        logger.info("pbe: offline, API links (intersphinx) skipped")
        config.intersphinx_mapping = {}


def setup(app):
    # Before sphinx.ext.intersphinx normalises the mapping (priority 800).
    app.connect("config-inited", _skip_intersphinx_offline, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
