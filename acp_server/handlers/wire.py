"""Validating incoming params against the generated wire models (imports pydantic).

Imported lazily by handlers that run after a session exists, and warmed up in the background
once the first session is ready, so no prompt waits for it.
"""

from __future__ import annotations

from functools import cache
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from acp_server.jsonrpc.errors import RpcError
from acp_server.protocol import schema

M = TypeVar("M", bound=BaseModel)

WARM_MODELS: tuple[type[BaseModel], ...] = (schema.PromptRequest,)


def validate(model: type[M], raw: Any) -> M:
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        details = exc.errors(include_url=False, include_context=False, include_input=False)
        raise RpcError.invalid_params(describe(exc), {"errors": details}) from None


def prompt_request(raw: Any) -> schema.PromptRequest:
    return validate(schema.PromptRequest, raw)


def set_mode_request(raw: Any) -> schema.SetSessionModeRequest:
    return validate(schema.SetSessionModeRequest, raw)


def set_config_option_request(
    raw: Any,
) -> schema.BooleanSetSessionConfigOptionRequest | schema.ValueIdSetSessionConfigOptionRequest:
    try:
        return _config_option_adapter().validate_python(raw)
    except ValidationError as exc:
        raise RpcError.invalid_params(describe(exc)) from None


@cache
def _config_option_adapter() -> TypeAdapter[schema.SetSessionConfigOptionRequest]:
    return TypeAdapter(schema.SetSessionConfigOptionRequest)


def dump(model: BaseModel) -> dict[str, Any]:
    """The JSON form of a wire model, with camelCase keys and without unset optionals."""
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def describe(exc: ValidationError) -> str:
    """ "prompt.0.text: Field required" for the first few problems."""
    problems = [
        f"{'.'.join(str(p) for p in error['loc']) or 'params'}: {error['msg']}"
        for error in exc.errors()[:3]
    ]
    more = f" (and {exc.error_count() - 3} more)" if exc.error_count() > 3 else ""
    return "; ".join(problems) + more


def warm_up() -> None:
    for model in WARM_MODELS:
        model.model_rebuild()
