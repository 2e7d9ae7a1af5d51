#!/usr/bin/env bash
# The review step of council's GitHub Action (action.yml): `council review` of the pull
# request's diff, its findings printed as workflow commands (the runner annotates the changed
# lines with them), the Markdown review appended to the job summary, SARIF written when asked;
# its exit code handed to the last step as an output, so the summary and the upload still run
# when the review blocks. Inputs come as environment variables, never spliced into the script.
set -uo pipefail

mkdir -p "$REVIEW_DIR"
review_md="$REVIEW_DIR/review.md"
summary="${GITHUB_STEP_SUMMARY:-/dev/null}"
output="${GITHUB_OUTPUT:-/dev/null}"

base="${BASE:-}"
if [ -z "$base" ]; then
    if [ -z "${BASE_REF:-}" ]; then
        echo "council: no base to review against: give the action's base input, or run it on a pull_request event" >&2
        echo "exit-code=2" >>"$output"
        exit 0
    fi
    base="$(git merge-base "origin/$BASE_REF" HEAD)" || {
        echo "council: origin/$BASE_REF is not fetched: check out with fetch-depth: 0" >&2
        echo "exit-code=2" >>"$output"
        exit 0
    }
fi

args=(review --diff "$base" --format github --output "$review_md")
if [ -n "${REVIEWERS:-}" ]; then args+=(--with "$REVIEWERS"); fi
if [ -n "${FAIL_ON:-}" ]; then args+=(--fail-on "$FAIL_ON"); fi
# Split at spaces only: nothing in the input is expanded or run.
read -r -a extra <<<"${EXTRA_ARGS:-}"

council "${args[@]}" "${extra[@]}"
code=$?

if [ -s "$review_md" ]; then
    # GitHub takes at most 1 MiB of summary per step.
    head -c 1000000 "$review_md" >>"$summary"
else
    echo "council review ended with exit code $code and no findings to show; see the step's log." >>"$summary"
fi
if [ "${SARIF:-false}" = "true" ] && [ -s "$review_md" ]; then
    sarif="$REVIEW_DIR/council.sarif"
    if council show last --sarif >"$sarif"; then
        echo "sarif-file=$sarif" >>"$output"
    fi
fi
echo "exit-code=$code" >>"$output"
exit 0
