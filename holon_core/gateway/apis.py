"""The model wire APIs the gateway speaks: public endpoints, call kinds, error bodies.

Adapters declare their engine's API as ``model_api``; a request's path tells a model call
from a side call (model lists, token counting), and Chat Completions from Responses when an
engine speaking OpenAI's API uses both.
"""

from __future__ import annotations

import json
from typing import Literal

ANTHROPIC_MESSAGES = "anthropic-messages"
OPENAI_RESPONSES = "openai-responses"
OPENAI_CHAT = "openai-chat-completions"
GOOGLE_GENERATE_CONTENT = "google-generate-content"

#: The API's public root, the form its engines' base URL variable takes without a path.
PUBLIC_ROOTS = {
    ANTHROPIC_MESSAGES: "https://api.anthropic.com",
    OPENAI_RESPONSES: "https://api.openai.com",
    OPENAI_CHAT: "https://api.openai.com",
    GOOGLE_GENERATE_CONTENT: "https://generativelanguage.googleapis.com",
}

#: genai-prices provider ids: calls are priced at the API vendor's list prices.
PRICE_PROVIDERS = {
    ANTHROPIC_MESSAGES: "anthropic",
    OPENAI_RESPONSES: "openai",
    OPENAI_CHAT: "openai",
    GOOGLE_GENERATE_CONTENT: "google",
}

Kind = Literal["model", "count_tokens", "models", "other"]


def known(api: str | None) -> bool:
    return api in PUBLIC_ROOTS


def classify(declared: str, method: str, path: str) -> tuple[str, Kind]:
    """The wire API and kind of one request, from its method and path."""
    if path.endswith("/count_tokens") or path.endswith(":countTokens"):
        return declared, "count_tokens"
    if method == "GET" and "/models" in path:
        return declared, "models"
    if method != "POST":
        return declared, "other"
    if path.endswith("/chat/completions"):
        return OPENAI_CHAT, "model"
    if path.endswith("/responses"):
        return OPENAI_RESPONSES, "model"
    if path.endswith("/messages"):
        return ANTHROPIC_MESSAGES, "model"
    if path.endswith(":generateContent") or path.endswith(":streamGenerateContent"):
        return GOOGLE_GENERATE_CONTENT, "model"
    return declared, "other"


def path_model(path: str) -> str | None:
    """The model a Google-style path names (``.../models/NAME:generateContent``)."""
    marker = "/models/"
    at = path.rfind(marker)
    if at < 0 or ":" not in path[at:]:
        return None
    return path[at + len(marker) :].split(":", 1)[0] or None


_ERRORS = {
    400: ("invalid_request_error", "INVALID_ARGUMENT"),
    403: ("permission_error", "PERMISSION_DENIED"),
}


def error_body(api: str, status: int, message: str) -> bytes:
    """An error in the wire's own format, so the engine reports it as it would the API's."""
    kind, state = _ERRORS.get(status, ("api_error", "UNAVAILABLE"))
    if api == ANTHROPIC_MESSAGES:
        body: object = {"type": "error", "error": {"type": kind, "message": message}}
    elif api == GOOGLE_GENERATE_CONTENT:
        body = {"error": {"code": status, "message": message, "status": state}}
    else:
        body = {"error": {"message": message, "type": kind, "code": str(status)}}
    return json.dumps(body).encode()
