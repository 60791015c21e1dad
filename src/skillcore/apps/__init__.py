"""Programs built on the core: the CLI, the MCP server and the selection evaluation."""
