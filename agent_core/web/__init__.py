"""The web, for ``web_fetch`` and ``web_search``: a guarded HTTP client (``http``), pages made
readable (``extract``), search backends' APIs (``backends``). Loaded only when a web tool runs."""
