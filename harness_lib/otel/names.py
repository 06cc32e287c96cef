"""The attribute names a run is written with, and read back: the conventions' and ours.

Pinned: the OpenTelemetry semantic conventions for GenAI **v1.40.0** (docs/gen-ai in
open-telemetry/semantic-conventions at tag v1.40.0: `gen-ai-spans.md`,
`gen-ai-agent-spans.md`, the JSON schemas of `gen_ai.input.messages` and
`gen_ai.output.messages`). Three spans: `invoke_agent {agent}` (the run),
`chat {model}` (one model call), `execute_tool {tool}` (one tool call).

What the conventions have no name for is ours, under `harness.` (documented here and
in docs/otel.md): the context each call sent, as the harness counts it, each message's
size, the stop reason, the cost and who said it, the policy's verdict.

>>> CHAT, TOOL, AGENT
('chat', 'execute_tool', 'invoke_agent')
>>> sorted(name for name in OURS if name.startswith("harness.context"))
['harness.context.system.tokens', 'harness.context.tokens', 'harness.context.tools.tokens']
"""

from __future__ import annotations

SEMCONV = "1.40.0"
SCHEMA_URL = f"https://opentelemetry.io/schemas/{SEMCONV}"

# gen_ai.operation.name's values (well-known ones; `call_llm` is any-agent's own name).
CHAT, TOOL, AGENT = "chat", "execute_tool", "invoke_agent"
MODEL_CALLS = frozenset({CHAT, "text_completion", "generate_content", "call_llm"})

OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
SYSTEM_OLD = "gen_ai.system"  # the provider's name before v1.37
AGENT_NAME = "gen_ai.agent.name"
REQUEST_MODEL = "gen_ai.request.model"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
FINISH_REASONS = "gen_ai.response.finish_reasons"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
ERROR_TYPE = "error.type"
# Opt-in: message content, written only when asked (`content=True`), always redacted.
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"

# Ours. Token counts are the harness's offline estimate (tokens.py), as its player shows them;
# the provider's own counts are gen_ai.usage.*.
CONTEXT_TOKENS = "harness.context.tokens"  # chat: messages[] + tool definitions, as sent
MESSAGE_TOKENS = "harness.message.tokens"  # chat, execute_tool: the message the step appended
SYSTEM_TOKENS = "harness.context.system.tokens"  # invoke_agent: the system prompt
TOOLS_TOKENS = "harness.context.tools.tokens"  # invoke_agent: the tool definitions
TASK_TOKENS = "harness.task.tokens"  # invoke_agent: the mission (the first user message)
STOP_REASON = "harness.stop.reason"  # invoke_agent: trace.StopReason
STOP_MESSAGE = "harness.stop.message"  # invoke_agent: the harness's stop message (redacted)
COST = "harness.cost.usd"  # chat: dollars, when known
COST_SOURCE = "harness.cost.source"  # chat: "provider" (usage.cost) or "price" (tokens × price)
VERDICT = "harness.permission.verdict"  # execute_tool: allow, ask or deny
RAN = "harness.tool.ran"  # execute_tool: false when the harness answered without running it

OURS = (CONTEXT_TOKENS, MESSAGE_TOKENS, SYSTEM_TOKENS, TOOLS_TOKENS, TASK_TOKENS, STOP_REASON,
        STOP_MESSAGE, COST, COST_SOURCE, VERDICT, RAN)
