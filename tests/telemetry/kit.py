"""What the telemetry tests share: the conventions' names (from the semantic-conventions
package, not our reading), and checks of a received trace's shape."""

from __future__ import annotations

from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.semconv.attributes.error_attributes import ERROR_TYPE

from .receiver import ReceivedSpan

OPERATION = gen_ai.GEN_AI_OPERATION_NAME
AGENT_NAME = gen_ai.GEN_AI_AGENT_NAME
PROVIDER = gen_ai.GEN_AI_PROVIDER_NAME
REQUEST_MODEL = gen_ai.GEN_AI_REQUEST_MODEL
INPUT_TOKENS = gen_ai.GEN_AI_USAGE_INPUT_TOKENS
OUTPUT_TOKENS = gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS
TOOL_NAME = gen_ai.GEN_AI_TOOL_NAME
TOOL_CALL_ID = gen_ai.GEN_AI_TOOL_CALL_ID
CONVERSATION_ID = gen_ai.GEN_AI_CONVERSATION_ID
WORKFLOW_NAME = gen_ai.GEN_AI_WORKFLOW_NAME
INVOKE_AGENT = gen_ai.GenAiOperationNameValues.INVOKE_AGENT.value
EXECUTE_TOOL = gen_ai.GenAiOperationNameValues.EXECUTE_TOOL.value
CHAT = gen_ai.GenAiOperationNameValues.CHAT.value
INVOKE_WORKFLOW = gen_ai.GenAiOperationNameValues.INVOKE_WORKFLOW.value
__all__ = ["ERROR_TYPE"]


def one_agent_span(spans: list[ReceivedSpan]) -> ReceivedSpan:
    agents = [s for s in spans if s.attributes.get(OPERATION) == INVOKE_AGENT]
    assert len(agents) == 1, [s.name for s in spans]
    return agents[0]


def children(spans: list[ReceivedSpan], parent: ReceivedSpan, operation: str) -> list[ReceivedSpan]:
    """The spans of ``operation`` whose parent is ``parent``; each in its trace and inside its
    time (a test's span count says none is left without its parent)."""
    found = [
        s
        for s in spans
        if s.attributes.get(OPERATION) == operation and s.parent_id == parent.span_id
    ]
    for span in found:
        assert span.trace_id == parent.trace_id, span
        assert parent.start_ns <= span.start_ns <= span.end_ns <= parent.end_ns, span
    return found
