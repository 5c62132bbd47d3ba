"""The agent turn: model request -> tool calls -> approvals -> results, as events."""
