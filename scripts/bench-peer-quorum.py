"""One quorum-cli discussion for scripts/bench-real.py's side-by-side row, run by the Python of
the venv that holds quorum-cli (it is not council's dependency), against the fake model server
that the environment names (CUSTOM_BASE_URL, CUSTOM_MODELS, CUSTOM_API_KEY).

    python bench-peer-quorum.py QUESTION MODEL[,MODEL...] [FILE...]

The files go before the question as quorum's own MCP server puts them. Exit 0 once quorum
wrote its synthesis, 1 otherwise (its error on stderr).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path


async def discuss(question: str, models: list[str]) -> bool:
    from quorum.team import FourPhaseConsensusTeam

    team = FourPhaseConsensusTeam(
        model_ids=models, method_override="standard", use_language_settings=False
    )
    synthesis = None
    async for message in team.run_stream(question):
        if type(message).__name__ == "SynthesisResult":
            synthesis = message
    return synthesis is not None and not str(getattr(synthesis, "synthesis", "")).startswith(
        "[Error"
    )


def main(argv: list[str]) -> int:
    question, models, *files = argv
    if files:
        context = "\n\n".join(f"--- {name} ---\n{Path(name).read_text()}" for name in files)
        question = f"Context files:\n\n{context}\n\n---\n\nQuestion: {question}"
    if not asyncio.run(discuss(question, models.split(","))):
        print("quorum: no synthesis", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
