"""The functions behind the MCP tools (``mcp_server`` registers them with the SDK): the workspace, what
each tool takes and gives back, migrate/lint/review/explain, and verify."""
