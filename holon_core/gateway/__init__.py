"""The model gateway: a loopback HTTP server between the engine and its model API (issue 24).

What it owns: forwarding the engine's model calls (the wire APIs adapters declare as
``model_api``, plus their side calls) to the upstream the user configured or the API's public
default, streamed chunk by chunk; the per-run placeholder credential the engine gets instead
of the real key, swapped for the real one upstream; metering every call
(``evidence/model-calls.ndjson``, the manifest's ``metadata.usage``) and pricing it with
``genai-prices`` (``metadata.cost``).

What it may import: the standard library, httpx, starlette/uvicorn, genai-prices (lazily) and
``holon_core.engine.adapter`` for the adapter's declarations. It never imports the agent pipeline,
serve mode, an adapter or the conformance kit; the pipeline hooks it in through
:mod:`holon_core.agent.gateway_run`. Docs: ``docs/gateway.md``.

Nothing is imported here: ``setting`` is cheap, the rest (httpx, uvicorn) loads only when a
gateway starts.
"""
