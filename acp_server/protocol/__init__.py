"""ACP wire types generated from the official JSON schema (``make gen-schema``); never hand-edited.

``methods`` (method names, no pydantic) is cheap; ``schema`` (pydantic models with deferred
builds) is imported only once a session exists.
"""
