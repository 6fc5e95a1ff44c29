#!/usr/bin/env bash
# `make test-slurm`: `sweep batch` sharded by a real Slurm job array (see README, Batch
# rendering). Starts a one-node cluster if none answers (Tests/slurm/cluster.sh, as root),
# then submits Tests/slurm/shard.sbatch as a 3-task array with `sbatch --wait`:
#   1. a batch of MP4 and GIF jobs: every output exists once, every job has exactly one
#      `ok` across the shard results files, each shard did exactly its own jobs, and each
#      output equals a direct `sweep render` and decodes to its full frame count;
#   2. the same array with --resume: every job is `skipped`, no output or sidecar changes
#      (checksum, size and mtime);
#   3. a fresh array in which task 1 is cancelled (scancel JOBID_1) after its first job,
#      then resubmitted with --resume: every output complete and decodable, each job `ok`
#      exactly once over both runs, no `.*.tmp` left behind.
# Works in a mktemp -d folder, removed at the end (also on failure or Ctrl-C), along with
# any job it left queued. Every wait has a timeout. Prints `slurm: P passed, F failed` and
# exits 1 if any check failed, naming it.
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
export SWEEP=${SWEEP:-$repo/.build/release/sweep}
script=$repo/Tests/slurm/shard.sbatch
shards=3
njobs=12 # 4 per shard: enough that a task cancelled after its first job is part-way
wait_limit=300 # seconds for any one array

[ -x "$SWEEP" ] || { echo "slurm: no $SWEEP (run make build)" >&2; exit 1; }
"$repo/Tests/slurm/cluster.sh" || { echo "slurm: FAILED: no usable cluster" >&2; exit 1; }
for tool in ffmpeg ffprobe sbatch squeue scancel scontrol; do
    command -v "$tool" >/dev/null || { echo "slurm: FAILED: $tool is missing" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/sweep-slurm.XXXXXX")
name=sweep-test-$$
cleanup() {
    scancel --name="$name" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

passed=0 failed=0
fail() { echo "slurm: FAILED: $*" >&2; return 1; }

# --- inputs and jobs -------------------------------------------------------
# A busy test pattern and a punchier grade of it. MP4s at 720p take ~2.5 s, GIFs ~1.5 s on
# one core: slow enough for a cancel to land between jobs, quick enough for a few minutes.
mkdir -p "$work/in" "$work/ref"
ffmpeg -v error -f lavfi -i testsrc2=size=960x720 -frames:v 1 "$work/in/before.png" &&
ffmpeg -v error -i "$work/in/before.png" -vf eq=saturation=2:contrast=1.3 "$work/in/after.png" ||
    { echo "slurm: FAILED: ffmpeg could not make the input images" >&2; exit 1; }
mp4_args=(--size 1280x720 --fps 30 --duration 4 --hold 0.5)
gif_args=(--size 640x480 --fps 25 --duration 4 --hold 0.5)
mp4_frames=120 # 30 fps × 4 s (--duration is the whole pass: 0.5 s hold, 3 s sweep, 0.5 s hold)
job_line() { # index → one JSONL job; even indices MP4, odd GIF, so each shard gets both
    local i=$1 ext=mp4 size=1280x720 fps=30
    (( i % 2 )) && { ext=gif size=640x480 fps=25; }
    printf '{"before": "%s", "after": "%s", "output": "out/job-%02d.%s", "size": "%s", "fps": %d, "duration": 4, "hold": 0.5}\n' \
        "$work/in/before.png" "$work/in/after.png" "$i" "$ext" "$size" "$fps"
}
make_jobs() { # folder → jobs.jsonl in it
    mkdir -p "$1"
    for ((i = 0; i < njobs; i++)); do job_line "$i"; done > "$1/jobs.jsonl"
}
output_of() { printf 'out/job-%02d.%s' "$1" "$( (( $1 % 2 )) && echo gif || echo mp4)"; }

# The reference: the same renders without Slurm. A batch job must give the same bytes.
"$SWEEP" render "$work/in/before.png" "$work/in/after.png" -o "$work/ref/ref.mp4" "${mp4_args[@]}" --quiet &&
"$SWEEP" render "$work/in/before.png" "$work/in/after.png" -o "$work/ref/ref.gif" "${gif_args[@]}" --quiet ||
    { echo "slurm: FAILED: the reference renders failed" >&2; exit 1; }

decoded_frames() { # file → frames ffprobe decodes; empty when decoding reports an error
    local out err
    err=$(mktemp)
    out=$(timeout 60 ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames \
          -of csv=p=0 "$1" 2>"$err")
    [ -s "$err" ] && out=""
    rm -f "$err"
    echo "$out"
}
gif_frames=$(decoded_frames "$work/ref/ref.gif")
[ -n "$gif_frames" ] && [ "$gif_frames" -gt 1 ] || { echo "slurm: FAILED: the reference GIF does not decode" >&2; exit 1; }
[ "$(decoded_frames "$work/ref/ref.mp4")" = "$mp4_frames" ] ||
    { echo "slurm: FAILED: the reference MP4 does not decode to $mp4_frames frames" >&2; exit 1; }

# --- helpers ---------------------------------------------------------------
submit() { # folder, sweep batch args… → runs the array to the end; sbatch's exit code
    local dir=$1; shift
    timeout "$wait_limit" sbatch --wait --quiet --array=0-$((shards - 1)) --job-name="$name" --chdir="$dir" \
        --output="$dir/slurm-%A_%a.log" --export=ALL "$script" --in-dir "$work/in" "$@"
}

# Records as "LINE STATUS" from every shard results file in a folder (the files are sorted
# JSON, so a field is `"key":value`).
records() {
    cat "$1"/jobs.shard-*-of-$shards.results.jsonl 2>/dev/null |
        sed -E 's/.*"line":([0-9]+).*"status":"([a-z]+)".*/\1 \2/'
}

# Every job has exactly one record in the folder's results files (each run writes them
# afresh), `ok`, or `ok` or `skipped` when $3 is "resumed".
check_one_ok_each() {
    local dir=$1 i n want='ok'
    [ "${3:-}" = resumed ] && want='(ok|skipped)'
    for ((i = 0; i < njobs; i++)); do
        n=$(records "$dir" | grep -cE "^$((i + 1)) $want$")
        [ "$n" = 1 ] || { fail "$2: job on line $((i + 1)) has $n $want results (want 1)"; return 1; }
    done
}

# Every output is there, equals the reference and decodes fully; no temporary file is left.
check_outputs() {
    local dir=$1 i out ref want got
    for ((i = 0; i < njobs; i++)); do
        out=$dir/$(output_of "$i")
        [ -f "$out" ] || { fail "$2: $(output_of "$i") is missing"; return 1; }
        [ -f "$out.sweep.json" ] || { fail "$2: $(output_of "$i") has no .sweep.json record"; return 1; }
        if (( i % 2 )); then ref=$work/ref/ref.gif want=$gif_frames; else ref=$work/ref/ref.mp4 want=$mp4_frames; fi
        cmp -s "$out" "$ref" || { fail "$2: $(output_of "$i") differs from a direct render ($(stat -c %s "$out") vs $(stat -c %s "$ref") bytes)"; return 1; }
        got=$(decoded_frames "$out")
        [ "$got" = "$want" ] || { fail "$2: $(output_of "$i") decodes to '${got:-an error}' frames (want $want)"; return 1; }
    done
    [ "$(find "$dir/out" -name '*.mp4' -o -name '*.gif' | wc -l)" = "$njobs" ] ||
        { fail "$2: $(find "$dir/out" -name '*.mp4' -o -name '*.gif' | wc -l) outputs (want $njobs)"; return 1; }
    local tmp
    tmp=$(find "$dir" -name '.*.tmp')
    [ -z "$tmp" ] || { fail "$2: temporary files left: $tmp"; return 1; }
}

# Each shard's results name exactly its own jobs: index i belongs to shard i mod N.
check_shard_ownership() {
    local k line
    for ((k = 0; k < shards; k++)); do
        local file=$1/jobs.shard-$k-of-$shards.results.jsonl
        [ -s "$file" ] || { fail "$2: no results from task $k ($file)"; return 1; }
        for line in $(sed -E 's/.*"line":([0-9]+).*/\1/' "$file"); do
            (( (line - 1) % shards == k )) || { fail "$2: shard $k rendered line $line"; return 1; }
        done
    done
}

snapshot() { # folder → checksum, size and mtime (ns) of every output and record
    (cd "$1/out" && for f in *; do printf '%s %s\n' "$(sha256sum "$f")" "$(stat -c '%s %.9Y' "$f")"; done)
}

# --- 1. one array renders every job once -----------------------------------
test_array() {
    local dir=$work/t1
    make_jobs "$dir"
    submit "$dir" || { fail "array: sbatch --wait exited $? (logs: $(cat "$dir"/slurm-*.log 2>/dev/null | head -5))"; return 1; }
    check_shard_ownership "$dir" array && check_one_ok_each "$dir" array && check_outputs "$dir" array || return 1
    [ "$(records "$dir" | wc -l)" = "$njobs" ] || { fail "array: $(records "$dir" | wc -l) results (want $njobs)"; return 1; }
}

# --- 2. --resume over a finished batch redoes nothing ----------------------
test_resume_noop() {
    local dir=$work/t1 before after
    [ -d "$dir/out" ] || { fail "resume: test 1 left no outputs"; return 1; }
    before=$(snapshot "$dir")
    submit "$dir" --resume || { fail "resume: sbatch --wait exited $?"; return 1; }
    after=$(snapshot "$dir")
    [ "$before" = "$after" ] || { fail "resume: outputs changed: $(diff <(echo "$before") <(echo "$after") | head -3)"; return 1; }
    local new
    new=$(records "$dir" | wc -l)
    [ "$new" = "$njobs" ] || { fail "resume: $new results (want $njobs: a fresh file per run)"; return 1; }
    local skipped
    skipped=$(records "$dir" | grep -c ' skipped$')
    [ "$skipped" = "$njobs" ] || { fail "resume: $skipped jobs skipped (want all $njobs)"; return 1; }
    check_one_ok_each "$dir" resume resumed
}

# --- 3. a cancelled task, resumed, leaves no truncated file ----------------
test_cancel_resume() {
    local dir=$work/t3 job="" i
    make_jobs "$dir"
    submit "$dir" &
    local waiter=$!
    # Task 1's first job done and more to come: cancel it there. (The results file appears
    # only when a task ends, so a finished job shows as its output's .sweep.json record.)
    done1() { local k n=0; for ((k = 1; k < njobs; k += shards)); do [ -f "$dir/$(output_of "$k").sweep.json" ] && n=$((n + 1)); done; echo $n; }
    for ((i = 0; i < 1200; i++)); do
        [ -z "$job" ] && job=$(squeue -h --name="$name" -o '%F' 2>/dev/null | head -1)
        [ -n "$job" ] && [ "$(done1)" -gt 0 ] && break
        sleep 0.1
    done
    [ -n "$job" ] && [ "$(done1)" -gt 0 ] || { fail "cancel: task 1 finished no job within 120 s"; kill "$waiter" 2>/dev/null; return 1; }
    scancel "${job}_1" || { fail "cancel: scancel ${job}_1 failed"; return 1; }
    wait "$waiter" # non-zero: one task was cancelled
    local state
    state=$(scontrol show job "${job}_1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -1)
    [ "$state" = JobState=CANCELLED ] || { fail "cancel: task ${job}_1 ended ${state:-unknown}, not CANCELLED"; return 1; }
    local done1 mine=$(( (njobs - 1 - 1) / shards + 1 ))
    done1=$(done1)
    (( done1 < mine )) || { fail "cancel: task 1 had finished all $mine jobs before scancel; make the jobs slower"; return 1; }
    echo "slurm: task ${job}_1 cancelled after $done1 of its $mine jobs"
    local tmp
    tmp=$(find "$dir" -name '.*.tmp')
    [ -z "$tmp" ] || { fail "cancel: the cancelled task left temporary files: $tmp"; return 1; }
    submit "$dir" --resume || { fail "cancel: the --resume array exited $?"; return 1; }
    check_one_ok_each "$dir" cancel resumed && check_outputs "$dir" cancel
}

for t in test_array test_resume_noop test_cancel_resume; do
    start=$SECONDS
    if "$t"; then
        passed=$((passed + 1)); echo "slurm: ok   ${t#test_} ($((SECONDS - start)) s)"
    else
        failed=$((failed + 1)); echo "slurm: FAIL ${t#test_} ($((SECONDS - start)) s)"
    fi
done
echo "slurm: $passed passed, $failed failed"
[ "$failed" = 0 ]
