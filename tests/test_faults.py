"""The classification of provider failures: a table over (status, body, exception type), in
each API's own error body shape, without the network."""

from __future__ import annotations

from typing import Any

import pytest

from agent_core.errors import (
    AuthenticationFailed,
    BadRequest,
    BillingProblem,
    ContextOverflow,
    ModelNotFound,
    ModelUnavailable,
    PermissionDenied,
)
from agent_core.models.faults import Fault, classify, from_status


def anthropic(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_1"}


def openai(message: str, kind: str, code: str | int | None = None) -> dict[str, Any]:
    """The SDK's ``exc.body`` is the ``error`` object; a raw body nests it: both are read."""
    return {"message": message, "type": kind, "param": None, "code": code}


TABLE: list[tuple[int | None, object, str, Fault]] = [
    # Anthropic Messages
    (401, anthropic("authentication_error", "invalid x-api-key"), "", "authentication"),
    (403, anthropic("permission_error", "not allowed"), "", "permission"),
    (402, anthropic("billing_error", "payment required"), "", "billing"),
    (
        400,
        anthropic("invalid_request_error", "Your credit balance is too low to access the API."),
        "",
        "billing",
    ),
    (404, anthropic("not_found_error", "model: claude-nope"), "", "unknown_model"),
    (429, anthropic("rate_limit_error", "Number of requests exceeded"), "", "rate_limit"),
    (529, anthropic("overloaded_error", "Overloaded"), "", "overloaded"),
    (500, anthropic("api_error", "Internal server error"), "", "server_error"),
    (504, anthropic("timeout_error", "Request timed out"), "", "timeout"),
    (
        400,
        anthropic("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"),
        "",
        "context_overflow",
    ),
    (
        413,
        anthropic("request_too_large", "Request exceeds the maximum size"),
        "",
        "context_overflow",
    ),
    (400, anthropic("invalid_request_error", "messages: roles must alternate"), "", "bad_request"),
    (200, anthropic("overloaded_error", "Overloaded"), "APIStatusError", "overloaded"),  # in-stream
    # OpenAI Responses and Chat Completions
    (
        401,
        openai("Incorrect API key provided", "invalid_request_error", "invalid_api_key"),
        "",
        "authentication",
    ),
    (
        403,
        openai(
            "Country not supported", "invalid_request_error", "unsupported_country_region_territory"
        ),
        "",
        "permission",
    ),
    (
        429,
        openai("You exceeded your current quota", "insufficient_quota", "insufficient_quota"),
        "",
        "billing",
    ),
    (
        429,
        openai("Rate limit reached for gpt-5", "requests", "rate_limit_exceeded"),
        "",
        "rate_limit",
    ),
    (
        404,
        openai("The model `gpt-9` does not exist", "invalid_request_error", "model_not_found"),
        "",
        "unknown_model",
    ),
    (
        400,
        openai(
            "This model's maximum context length is 128000 tokens.",
            "invalid_request_error",
            "context_length_exceeded",
        ),
        "",
        "context_overflow",
    ),
    (500, openai("The server had an error", "server_error"), "", "server_error"),
    (503, openai("The engine is currently overloaded", "server_error"), "", "overloaded"),
    (400, openai("Invalid value for 'tool_choice'", "invalid_request_error"), "", "bad_request"),
    (
        None,
        {"code": "context_length_exceeded", "message": "Your input exceeds the context window"},
        "",
        "context_overflow",
    ),  # response.failed
    (None, {"code": "server_error", "message": "An error occurred"}, "", "server_error"),
    (
        None,
        {"type": "error", "code": "rate_limit_exceeded", "message": "slow"},
        "",
        "rate_limit",
    ),  # error event
    # Chat Completions servers (OpenRouter, DeepSeek, Ollama, vLLM)
    (402, {"error": {"code": 402, "message": "Insufficient credits"}}, "", "billing"),
    (402, {"error": {"message": "Insufficient Balance", "type": "unknown_error"}}, "", "billing"),
    (
        404,
        {
            "error": {
                "message": 'model "qwen9" not found, try pulling it first',
                "type": "api_error",
            }
        },
        "",
        "unknown_model",
    ),
    (
        400,
        {
            "object": "error",
            "message": "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens. Please reduce the length of the messages.",
            "type": "BadRequestError",
        },
        "",
        "context_overflow",
    ),
    (502, "Bad Gateway", "", "server_error"),
    (418, "I'm a teapot", "", "bad_request"),
    # no answer at all
    (None, "Request timed out.", "APITimeoutError", "timeout"),
    (None, "Connection error.", "APIConnectionError", "connection"),
    (None, "peer closed connection", "RemoteProtocolError", "connection"),
]


@pytest.mark.parametrize(("status", "body", "exception", "expected"), TABLE)
def test_each_failure_has_its_class(
    status: int | None, body: object, exception: str, expected: Fault
) -> None:
    assert classify(status, body, exception) == expected


def test_a_raw_openai_body_nests_the_error_object() -> None:
    body = {
        "error": openai(
            "You exceeded your current quota", "insufficient_quota", "insufficient_quota"
        )
    }
    assert classify(429, body) == "billing"


ERRORS: list[tuple[int, object, type[Exception], str]] = [
    (401, anthropic("authentication_error", "bad key"), AuthenticationFailed, "ANTHROPIC_API_KEY"),
    (402, openai("pay", "billing"), BillingProblem, "add credit"),
    (403, anthropic("permission_error", "no"), PermissionDenied, "/model"),
    (404, anthropic("not_found_error", "model: x"), ModelNotFound, "/model"),
    (
        400,
        anthropic("invalid_request_error", "prompt is too long"),
        ContextOverflow,
        "no longer fits",
    ),
    (400, anthropic("invalid_request_error", "bad"), BadRequest, "rejected the request"),
    (529, anthropic("overloaded_error", "Overloaded"), ModelUnavailable, "overloaded"),
]


@pytest.mark.parametrize(("status", "body", "kind", "says"), ERRORS)
def test_each_class_becomes_its_error_with_a_one_line_fix(
    status: int, body: object, kind: type[Exception], says: str
) -> None:
    error = from_status(
        "Anthropic", "claude-x", status, body, {"retry-after": "2"}, key="ANTHROPIC_API_KEY"
    )
    assert type(error) is kind and says in str(error) and "\n" not in str(error)
    if isinstance(error, ModelUnavailable):
        assert error.retry_after == 2 and error.fault == "overloaded"


def test_authentication_and_billing_say_what_to_do() -> None:
    auth = from_status(
        "OpenAI",
        "gpt-5",
        401,
        openai("x", "invalid_request_error", "invalid_api_key"),
        key="OPENAI_API_KEY",
    )
    assert (
        str(auth)
        == "OpenAI rejected the API key (401: x): set OPENAI_API_KEY or run `heron login`, then try again."
    )
    quota = from_status(
        "OpenAI",
        "gpt-5",
        429,
        openai(
            "You exceeded your current quota, please check your plan and billing details.",
            "insufficient_quota",
            "insufficient_quota",
        ),
    )
    assert str(quota).startswith(
        "OpenAI refused the request for billing (You exceeded your current quota"
    )
    assert "add credit or raise the quota in your OpenAI account" in str(quota)
