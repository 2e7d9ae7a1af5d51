"""`council mcp`: council's tools for an IDE's agent, over the Model Context Protocol (stdio).

A front end beside `council.cli`: it calls the same library (`panel.run.detach`,
`runs.store`, `debate.result`, `doctor`) and mirrors what the `debate`, `wait`,
`status`, `cancel` and `doctor` commands do. Only `server` imports the MCP SDK (an optional
extra); `follow` and `outcome` need nothing but council, so they are tested without it.

The package is `council.mcp`; the SDK is the top-level `mcp`. Every import of the SDK here is
absolute (`from mcp.server...`), which never resolves to this package.
"""
