"""council-sim: the offline simulator that stands in for an AI coding CLI.

``council-sim`` (also ``python -m council.sim``) reads a whole prompt from stdin, writes a
deterministic, role-appropriate reply on stdout and exits 0. It lets a complete debate run on a
machine with no AI CLI, and lets the test suite and the benchmarks inject faults. It uses the
standard library only and imports nothing from ``council`` except ``council.__version__``, so it
starts fast.

Command line
------------
``council-sim [--model NAME] [--effort LEVEL]``
    Reply to the prompt on stdin. ``--model`` is echoed in the reply's label
    (``[SIMULATED] [model=NAME]``); ``--effort`` is accepted for compatibility with the real
    CLIs and otherwise ignored. ``--opt=value`` spellings work too.
``council-sim --version``
    Print ``council-sim <council.__version__>`` and exit 0.
``council-sim --help`` / ``-h``
    Print a short usage with the list of ``COUNCIL_SIM_*`` variables and exit 0.
Anything else
    ``council-sim: error: unknown option 'X'`` on stderr, exit 2. A bad fault variable value
    (e.g. ``COUNCIL_SIM_DELAY=abc``) is reported the same way, also with exit 2.

Prompt conventions
------------------
The prompt is decoded as UTF-8 with ``errors="replace"``. Identical stdin bytes (with the same
``--model`` and the same variables) always give byte-identical output: every variant is chosen
from the sha256 of the raw prompt bytes (with a run's fence nonce and canary masked, so the same
debate run twice gets the same replies), never from the clock or a random source.

Phase
    The first line of the form ``ACTION: <PHASE>`` or ``Phase: <PHASE>`` (key case-insensitive,
    optional Markdown decoration such as ``**ACTION:**`` or ``- Phase:``, ``ACTION:PROPOSAL``
    without a space works) whose value names a known phase decides. Known phases: PROPOSAL,
    BLIND_TAKE (``BLIND TAKE`` accepted), CHALLENGE, RESPOND, REBUTTAL, FINAL_SUMMARY
    (``FINAL SUMMARY`` and ``final-summary`` are accepted), DECISION, CONVERGENCE, REPAIR,
    a check's CHECK, and a review's REVIEW, REVIEW_REPAIR, CROSS_CHECK, CROSS_CHECK_REPAIR.
    Text after the phase name on that line (e.g. ``ACTION: PROPOSAL (round 1)``) is ignored.
    Lines with unknown values are skipped.
    Without such a line, keywords decide, most specific first:

    1. REPAIR: "repair" (or "malformed" / "not valid JSON") together with "JSON";
    2. DECISION: "JSON", "recommendation" and "votes" together (a request for the decision
       object);
    3. CONVERGENCE: "converge", "converged", "convergence" or "open_blocking";
    4. FINAL_SUMMARY: "final summary" (also ``final_summary``, ``final-summary``);
    5. REBUTTAL: "rebut", "rebuttal";
    6. RESPOND: "respond", "answer the challenge(s)", "address the challenge/objection";
    7. CHALLENGE: "challenge the proposal", "critique", "fragile assumption", "weak point",
       "simpler alternative" (plain "challenge" is not enough: the isolation header says
       "challenge it where needed" in every prompt);
    8. PROPOSAL: "propose", "proposal".

    Anything else is the phase UNKNOWN and gets a generic analytic answer.
Question
    The text after the first ``Question:`` / ``QUESTION:`` line (on the same line, or the next
    non-empty line when the rest of that line is empty), or the paragraph under a
    ``## Question`` heading (any heading level), whichever comes first; fallback: the first line
    ending in ``?``. Quoted in every reply; longer than 30 words it is shortened with ``...``.
File name
    The first path-like token (contains ``/`` or ends in ``.ext``) on a line ``File: x``,
    ``### x`` or ``--- x ---``; else the first token like ``name.ext`` or ``dir/name.ext`` with a
    common source/doc extension anywhere in the prompt. The instruction files named by the
    isolation header (CLAUDE.md, AGENTS.md, GEMINI.md, ...) never count. Quoted in the reply.
Word limit
    The first ``at most N words`` in the prompt (default 150). Text replies stay at or under it,
    counting words as the protocol does (whitespace-separated tokens, each CJK character one
    word): whole sentences are dropped from the end, and a first sentence longer than the limit
    is cut. JSON replies (DECISION, REPAIR, CONVERGENCE) ignore the limit.
Role
    An optional ``ROLE: <role>`` line (advocate, critic, proxy or ``proxy-<cli>``) only flavours
    the text ("As the critic, I ...").
Vote
    A prompt that asks for a closing ``VOTE: agree|revise|disagree - <reason>`` line (a
    challenger's last word) gets one as the reply's last line, chosen from the hash and
    counted within the word limit.
Injected material
    Inside the prompt's fences (a ``<<<UNTRUSTED <nonce> BEGIN ...>>>`` line to the matching
    END line), a line that says ``ignore the/all/any/your/previous/prior ...``, ``disregard
    ...`` or ``vote agree|revise|disagree`` is an instruction planted in the material. A sim
    whose role (the ``ROLE:`` line: advocate, critic, proxy, reviewer) or ``--model`` is listed
    in ``COUNCIL_SIM_OBEY`` obeys it, as a model the material has taken over: its text opens by
    saying it follows the instruction and gives away the prompt's canary (``CANARY-<hex>``), it
    votes as told when the line names a vote, and as a reviewer it reports no findings (a JSON
    reply gets the canary on a line after the object). Every other sim reports the instruction
    on an ``INJECTION: <line>`` line (after a JSON object), as the prompt asks. DECISION,
    REPAIR and CONVERGENCE (the lead's calls) do neither.
Stance
    A CHECK answer is a blind take that ends with ``POSITION: <stance>``: the stance that a
    ``SIM_PREFER(name=stance,...)`` anywhere in the prompt gives this simulator's ``--model``
    (tests seat ``sim:alpha`` and ``sim:beta`` to make a panel split), else the first option
    listed under ``## Options``, else ``yes``.
Markers
    ``FORCE_DIVERGE`` anywhere in the prompt makes CONVERGENCE answer ``"converged": false``
    with a non-empty ``open_blocking``. ``FORCE_BLOCKING`` makes DECISION/REPAIR return a
    non-empty ``blocking_concerns``.

Replies
-------
Text phases (PROPOSAL, BLIND_TAKE, CHECK, CHALLENGE, RESPOND, REBUTTAL, FINAL_SUMMARY,
UNKNOWN) give one paragraph starting with ``[SIMULATED]``. CONVERGENCE gives
``{"converged": bool, "open_blocking": [...]}``.
REVIEW and REVIEW_REPAIR give ``{"findings": [...]}``, CROSS_CHECK and CROSS_CHECK_REPAIR
``{"verdicts": [...]}`` (see ``council.sim.review``: findings from the smells on the code's
lines, a diff's added lines only; ``SIM_ONLY(name,...)`` on a line limits it to the simulators
started with ``--model name``; a verdict confirms what this simulator would raise itself).
DECISION and REPAIR give one JSON object (no fences) with the keys of the ``decision`` object of
``docs/spec/outputs.md`` except ``synthesized_by`` (the lead adds that): recommendation (starts with
``[SIMULATED]``), consensus, disagreements (``{point, ruling, reason, loop: false}``), tradeoffs,
blocking_concerns, next_step ``{action, verify_command, done_criterion}`` and confidence (int
55-95 from the hash); no votes: the seats cast those themselves.

Fault injection (environment variables, all optional)
-----------------------------------------------------
Boolean variables are on unless empty, ``0``, ``false``, ``no`` or ``off``.

``COUNCIL_SIM_PHASES``
    Comma-separated phases (e.g. ``CHALLENGE,REBUTTAL``; UNKNOWN is allowed). When set, the
    faults below apply only to calls whose phase is listed; otherwise to every call.
    ``COUNT_FILE`` is never filtered.
``COUNCIL_SIM_COUNT_FILE=<path>``
    Append ``<phase>\\t<first 12 hex chars of sha256(prompt bytes)>`` for every invocation, under
    an exclusive ``fcntl`` lock, so tests can count calls.
``COUNCIL_SIM_IGNORE_SIGTERM=1``
    Set SIGTERM to SIG_IGN at start, before stdin is read (combine with HANG or DELAY). When a
    phase filter is set and does not match, the previous disposition is restored once the phase
    is known.
``COUNCIL_SIM_AUTH=1``
    Print ``Not logged in · Please run /login (simulated)`` to stderr, exit 1.
``COUNCIL_SIM_EXIT=<code>``
    Print ``COUNCIL_SIM_STDERR`` (default ``council-sim: simulated failure``) to stderr and exit
    with that code, without replying.
``COUNCIL_SIM_RATE_LIMIT=<n>``
    The first n calls with this exact prompt print
    ``Error: 429 Too Many Requests (simulated rate limit)`` (plus `` retry after <s>s`` when
    ``COUNCIL_SIM_RETRY_AFTER=<s>`` is set) to stderr and exit 1; later calls succeed. Calls are
    counted in ``council-sim-ratelimit-<sha256 of prompt>.count`` under
    ``COUNCIL_SIM_STATE_DIR`` (default ``tempfile.gettempdir()``), under an exclusive lock so
    parallel calls count right.
``COUNCIL_SIM_HANG=1``
    After reading stdin, sleep forever (never reply).
``COUNCIL_SIM_DELAY=<seconds>``
    Reply that many seconds (float) after the call started (at once when that has passed):
    ``COUNCIL_SIM_STARTED_AT`` (a Unix time council's sim adapter sets at spawn), else when
    the sim began; its own start-up is included, so a call's duration is known exactly.
``COUNCIL_SIM_EMPTY=1``
    Exit 0 with no output.
``COUNCIL_SIM_GRANDCHILD=1``
    Fork a grandchild that calls ``os.setsid()`` (leaving the process group), keeps the
    inherited stdout/stderr open and sleeps 3600 s; the sim waits until the grandchild has
    called setsid, then replies normally and exits. The caller has to find and kill it.
``COUNCIL_SIM_GARBAGE=1``
    The reply is written with invalid UTF-8 mixed in (``\\xff\\xfe``, a lone ``\\xc3``, a stray
    ``\\x80``) but keeps its readable text.
``COUNCIL_SIM_WORDS=<n>``
    Make the reply exactly n words long, ignoring the prompt's limit: shorter replies are padded
    with filler sentences (each ending in a period), longer ones are cut. Applies to JSON phases
    too, which then no longer parse (useful for testing the repair path).
``COUNCIL_SIM_HUGE=<bytes>``
    After the normal reply, write exactly that many more bytes of filler text, in 64 KiB chunks,
    flushing after each.
``COUNCIL_SIM_OBEY=<names>``
    Comma-separated roles or ``--model`` names (case-insensitive) of the sims that obey an
    instruction found in the fenced material (see "Injected material" above); the others
    report it.
``COUNCIL_SIM_SERVED=<name>`` or ``<asked>=<served>,...``
    The model the sim says served a successful call, on stderr as ``council-sim: served by
    NAME`` (how a real CLI names the model that answered; the sim adapter reads it): the name
    mapped to its ``--model``, else the bare name, else its ``--model``. Neither given: it
    names none.

``COUNCIL_SIM_REPLY_FILE=<path>``
    A JSON object of phase names and reply texts (``{"DECISION": "{...}"}``): a call whose
    phase it names (and the phase filter matches) replies with that text instead of the
    generated one, so a test scripts exactly what a seat says.

Order of evaluation: COUNT_FILE, IGNORE_SIGTERM, then (when the phase filter matches) AUTH,
EXIT, RATE_LIMIT, HANG, DELAY, EMPTY, GRANDCHILD, then the reply (REPLY_FILE's, else the
generated one) with WORDS, GARBAGE and HUGE applied in that order. The sim never writes to
its working directory, which may be read-only.
"""

# The line that names the model a call was served by (see COUNCIL_SIM_SERVED above).
SERVED_PREFIX = "council-sim: served by "
