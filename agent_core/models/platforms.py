"""Claude on the cloud platforms: AWS Bedrock (``bedrock:<model>``) and Google Vertex AI
(``vertex:<model>``), through the anthropic SDK's own ``AsyncAnthropicBedrock`` and
``AsyncAnthropicVertex`` clients.

The Anthropic adapter builds the request and reads the stream as for the first-party API; the
platform clients rewrite it as their platform wants (the model moves from the body into the URL,
``anthropic_version`` goes into the body; Bedrock streams AWS event-stream frames, which the
client decodes) and sign it with the platform's credentials, found where the platform's own
tools look: for Bedrock ``AWS_REGION``, ``AWS_PROFILE``, ``~/.aws``, ``AWS_BEARER_TOKEN_BEDROCK``
(a Bedrock API key); for Vertex ``CLOUD_ML_REGION``, ``GOOGLE_CLOUD_PROJECT`` and Application
Default Credentials (``gcloud auth application-default login``), or an access token as
``api_key``. Signing needs packages Heron does not install by default: ``heron-agent[bedrock]``
(boto3, botocore) and ``heron-agent[vertex]`` (google-auth).
"""

from __future__ import annotations

import importlib.util
from typing import Any

from agent_core.errors import ModelConfigError
from agent_core.providers import ProviderSettings

PLATFORMS = ("bedrock", "vertex")


def platform_client(provider: ProviderSettings) -> Any:
    """The SDK client for ``provider``'s platform; ``ModelConfigError`` says what is missing."""
    headers = dict(provider.headers) or None
    if provider.api == "bedrock":
        needed = ("botocore",) if provider.api_key else ("botocore", "boto3")
        _require(needed, "bedrock", "Bedrock")
        from anthropic.lib.bedrock import AsyncAnthropicBedrock

        try:
            return AsyncAnthropicBedrock(
                aws_region=provider.region,
                aws_profile=None if provider.api_key else provider.profile,
                api_key=provider.api_key,
                base_url=provider.base_url,
                max_retries=0,
                default_headers=headers,
            )
        except ValueError as exc:
            raise ModelConfigError(
                f"{provider.name} (Bedrock) needs an AWS region: set AWS_REGION, or region under "
                f"[providers.{provider.name}] in config.toml ({exc})"
            ) from exc
    if not provider.api_key:  # an access token needs nothing more
        _require(("google.auth",), "vertex", "Vertex AI")
    if not provider.region or not (provider.project or not provider.api_key):
        raise ModelConfigError(
            f"{provider.name} (Vertex AI) needs a region and a project: set CLOUD_ML_REGION "
            f"and GOOGLE_CLOUD_PROJECT, or region and project under [providers.{provider.name}]"
        )
    from anthropic import not_given
    from anthropic.lib.vertex import AsyncAnthropicVertex

    return AsyncAnthropicVertex(
        region=provider.region,
        project_id=provider.project or not_given,
        access_token=provider.api_key,
        base_url=provider.base_url,
        max_retries=0,
        default_headers=headers,
    )


def _require(modules: tuple[str, ...], extra: str, platform: str) -> None:
    missing = [m for m in modules if importlib.util.find_spec(m.partition(".")[0]) is None]
    if missing:
        raise ModelConfigError(
            f"{platform} needs {' and '.join(missing)}, which Heron does not install by default: "
            f"install heron-agent[{extra}] (pip install 'heron-agent[{extra}]', or "
            f"uv tool install 'heron-agent[{extra}]')"
        )
