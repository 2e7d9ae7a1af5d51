"""`council mcp`: council's tools for an IDE's agent, over the Model Context Protocol (stdio).

A front end beside `council.cli`: it calls the same library (`panel.run.detach`,
`protocols`, `runs.store`, `debate.result`, `review.result`, `doctor`) and mirrors what the
`debate`, `review`, `wait`, `status`, `cancel` and `doctor` commands do. `server` and what
builds its tools and replies (`arguments`, `replies`, `results`) import the MCP SDK (an
optional extra); `follow`, `outcome` and `findings` need nothing but council, so they are
tested without it.

The package is `council.mcp`; the SDK is the top-level `mcp`. Every import of the SDK here is
absolute (`from mcp.server...`), which never resolves to this package.
"""
