#!/usr/bin/python3
"""Mutation fuzzer for sdfg-opt and sdfg-translate (standard library only).

Takes the lit tests' inputs (test/**/*.mlir, split at `// -----`), applies
seeded mutations (integer and float literals to boundary values, shapes
and element types of memref types, op names, attributes, strings, SSA
names, lines swapped, repeated or deleted, truncation) and runs every
mutant that parses and verifies through --sdfg-autodiff, --sdfg-checkpoint
(mem=1, and recompute-all followed by the lowering), --sdfg-lower-to-cpu,
the sdfg-opt pipelines of the test's own RUN lines, one pipeline with a
boundary value in a size option (while-capacity, data-loop-capacity, mem)
and sdfg-translate to LLVM IR. Mutant number i of seed S is a function of
(S, i) alone: a seed and --count give the same mutants, hence the same
outcome, on every machine; --seconds only cuts the run short.

A finding is a run that
  - ends by a signal, or with an exit status other than 0 and 1,
  - runs longer than --timeout seconds (a hang),
  - prints an assertion, LLVM ERROR, stack dump, UNREACHABLE, "PLEASE submit
    a bug report" or a sanitizer report,
  - exits with 1 without a located diagnostic ("FILE:LINE:COL: error:"), or
  - fails with a located error that is the verifier rejecting IR a pass
    produced: run again with --verify-each=false the pipeline succeeds, and
    its output does not parse and verify.
Rejecting a bad input with a located error is the expected outcome. A
crash inside another dialect's MLIR parser while reading the mutant (no
pass running; MLIR 22's linalg.reduce parser on a 2^63 dimension) is
upstream's and is listed, not counted as a finding.

Every new finding (one per signature: the kind, the sanitizer's file:line
or the innermost frame of this project) is saved in --out as
crash-<id>.mlir with crash-<id>.json (tool, arguments, command, exit,
signature, origin, stderr); with --minimize a line-reduced
crash-<id>.min.mlir is written as well. The exit status is 1 when there
was a finding, 0 otherwise.

  utils/fuzz.py --count 800 --seed 1             # what utils/test.sh runs
  utils/fuzz.py --seconds 600 --seed 7 --minimize --build build-sanitize
  utils/fuzz.py --reduce build/fuzz-crashes/crash-1234abcd.mlir
  utils/fuzz.py --replay build/fuzz-crashes      # do they still fail?
"""

import argparse
import concurrent.futures
import glob
import hashlib
import json
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Boundary values for integer literals and shapes: sign, 32-bit and 64-bit
# limits, the bit widths where products of sizes overflow, and one past
# INT64_MAX (which the parser must reject, not wrap).
BOUNDARY_INTS = [
    "0", "1", "-1", "2", "-2", "3", "7", "64", "2147483647", "2147483648",
    "-2147483648", "4294967295", "4294967296", "1152921504606846976",
    "2305843009213693951", "2305843009213693952", "4611686018427387903",
    "-4611686018427387903", "4611686018427387904", "9223372036854775807",
    "-9223372036854775808", "9223372036854775808", "18446744073709551616",
]
# 2^62 - 1 is the largest loop and map bound the verifiers accept.
BOUNDARY_DIMS = ["0", "1", "2", "?", "2147483647", "2147483648", "4294967296",
                 "1152921504606846976", "2305843009213693952",
                 "4611686018427387903", "9223372036854775807"]
BOUNDARY_FLOATS = ["0.0", "-0.0", "1.0e+308", "-1.0e+308", "4.9e-324",
                   "0x7FF0000000000000", "0xFFF0000000000000",
                   "0x7FF8000000000000"]
ELEMENT_TYPES = ["f64", "f32", "f16", "bf16", "i1", "i8", "i32", "i64",
                 "index", "complex<f64>"]

INT_RE = re.compile(r"(?<![\w.%#@^\"-])-?\b\d+\b(?![\w.])")
FLOAT_RE = re.compile(r"(?<![\w.])-?\d+\.\d+(?:[eE][-+]?\d+)?\b")
SHAPE_RE = re.compile(r"\b(memref|tensor|vector)<([^<>]*)>")
ELTYPE_RE = re.compile(r"\b(?:f16|bf16|f32|f64|i1|i8|i16|i32|i64|index)\b")
OPNAME_RE = re.compile(r"\bsdfg\.[a-z_]+\b")
ATTR_RE = re.compile(
    r"(?:,\s*)?\b[a-z_][\w.]* = (?:\"[^\"]*\"|\[[^\[\]]*\]|[\w.@+-]+"
    r"(?: : [\w<>]+)?)")
STRING_RE = re.compile(r"\"[^\"\n]*\"")
SSA_RE = re.compile(r"%[\w]+")

# A diagnostic that points into the input (or any file): PATH:LINE:COL.
LOCATED_ERROR_RE = re.compile(r"^\S.*:\d+:\d+: error: ", re.M)
CRASH_MARKERS = [
    "Assertion", "LLVM ERROR", "Stack dump", "UNREACHABLE",
    "PLEASE submit a bug report", "AddressSanitizer", "LeakSanitizer",
    "UndefinedBehaviorSanitizer", "runtime error:", "ThreadSanitizer",
    "MemorySanitizer",
]
SANITIZER_LINE_RE = re.compile(
    r"(\S+:\d+:\d+: runtime error: .*|ERROR: \w+Sanitizer: .*"
    r"|SUMMARY: \w+Sanitizer: .*)")

# The fixed pipelines every mutant that parses goes through, on top of the
# sdfg-opt pipelines of its test's RUN lines.
FIXED_PIPELINES = [
    ("sdfg-opt", []),
    ("sdfg-opt", ["--sdfg-autodiff"]),
    ("sdfg-opt", ["--sdfg-autodiff", "--sdfg-checkpoint=mem=1"]),
    ("sdfg-opt", ["--sdfg-autodiff", "--sdfg-checkpoint=strategy=recompute-all",
                  "--sdfg-lower-to-cpu"]),
    ("sdfg-opt", ["--sdfg-lower-to-cpu"]),
    ("sdfg-translate", ["-emit=llvm"]),
]

# Pass options with sizes in them, each mutant gets one with a boundary
# value (only values an int64 option parses: the rest is a command-line
# error, not a finding).
OPTION_PIPELINES = [
    ["--sdfg-autodiff=while-capacity={v}", "--sdfg-lower-to-cpu"],
    ["--sdfg-autodiff=data-loop-capacity={v}", "--sdfg-lower-to-cpu"],
    ["--sdfg-autodiff", "--sdfg-checkpoint=mem={v}B", "--sdfg-lower-to-cpu"],
]
OPTION_VALUES = [
    "0", "1", "-1", "2", "64", "2147483647", "2147483648", "4294967296",
    "1152921504606846976", "2305843009213693951", "2305843009213693952",
    "4611686018427387903", "4611686018427387904", "9223372036854775807",
    "-9223372036854775808",
]


# --------------------------------------------------------------------------
# Corpus
# --------------------------------------------------------------------------

def run_line_pipelines(text):
    """sdfg-opt option lists of the RUN lines that are expected to succeed."""
    lines = []
    current = ""
    for line in text.splitlines():
        m = re.match(r"\s*//\s*RUN:\s?(.*)$", line)
        if not m:
            continue
        part = m.group(1).rstrip()
        if part.endswith("\\"):
            current += part[:-1] + " "
            continue
        lines.append(current + part)
        current = ""
    pipelines = []
    for cmd in lines:
        first = cmd.split("|")[0].strip()
        if not first.startswith("sdfg-opt "):
            continue  # `not sdfg-opt` lines test bad options, not inputs
        try:
            words = shlex.split(first)[1:]
        except ValueError:
            continue
        opts = [w for w in words
                if w.startswith("-") and w not in (
                    "-split-input-file", "--split-input-file",
                    "-verify-diagnostics", "--verify-diagnostics", "-o")]
        opts = [o for o in opts if "gpu" not in o or "emulat" in o]
        if opts:
            pipelines.append(opts)
    return pipelines


def load_corpus(pattern):
    """([(path, chunk, pipelines)] of valid inputs, the same of inputs
    with expected-error annotations), in a fixed order."""
    valid, invalid = [], []
    for path in sorted(glob.glob(pattern, recursive=True)):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        pipelines = run_line_pipelines(text)
        for chunk in re.split(r"^// -----\s*$", text, flags=re.M):
            body = "\n".join(l for l in chunk.splitlines()
                             if not re.match(r"\s*//", l))
            if body.strip():
                entry = (os.path.relpath(path, ROOT), body + "\n", pipelines)
                (invalid if "expected-error" in chunk else valid).append(entry)
    return valid, invalid


# --------------------------------------------------------------------------
# Mutations: each takes (rng, text, corpus-wide op names) and returns a new
# text, or None when it does not apply.
# --------------------------------------------------------------------------

def _replace_match(rng, text, regex, make):
    matches = list(regex.finditer(text))
    if not matches:
        return None
    m = rng.choice(matches)
    return text[:m.start()] + make(m) + text[m.end():]


def m_int_literal(rng, text, _ops):
    def make(m):
        if rng.random() < 0.3:  # off by one (or a few): still plausible IR
            return str(int(m.group(0)) + rng.choice([-2, -1, 1, 2]))
        return rng.choice(BOUNDARY_INTS)
    return _replace_match(rng, text, INT_RE, make)


def m_float_literal(rng, text, _ops):
    return _replace_match(rng, text, FLOAT_RE,
                          lambda m: rng.choice(BOUNDARY_FLOATS))


def _new_shape(rng, m):
    """Another shaped type for the match `m` of SHAPE_RE."""
    dims = m.group(2).split("x")
    kind = rng.randrange(4)
    if kind == 0 and len(dims) > 1:  # one dimension to a boundary value
        i = rng.randrange(len(dims) - 1)
        dims[i] = rng.choice(BOUNDARY_DIMS)
    elif kind == 1 and len(dims) > 1:  # drop a dimension
        del dims[rng.randrange(len(dims) - 1)]
    elif kind == 2:  # add a dimension
        dims.insert(rng.randrange(len(dims)), rng.choice(BOUNDARY_DIMS))
    else:  # every dimension huge: products overflow
        dims = [rng.choice(BOUNDARY_DIMS[4:]) for _ in dims[:-1]] + dims[-1:]
    if rng.random() < 0.2:
        dims[-1] = rng.choice(ELEMENT_TYPES)
    return "%s<%s>" % (m.group(1), "x".join(dims))


def m_shape(rng, text, _ops):
    """One occurrence of a shaped type changes (mostly a type error)."""
    return _replace_match(rng, text, SHAPE_RE, lambda m: _new_shape(rng, m))


def m_retype(rng, text, _ops):
    """Every occurrence of one shaped type changes: the IR stays consistent
    and the new sizes reach the verifiers and passes."""
    matches = list(SHAPE_RE.finditer(text))
    if not matches:
        return None
    m = rng.choice(matches)
    return text.replace(m.group(0), _new_shape(rng, m))


def m_element_type(rng, text, _ops):
    return _replace_match(rng, text, ELTYPE_RE,
                          lambda m: rng.choice(ELEMENT_TYPES))


def m_op_name(rng, text, ops):
    return _replace_match(rng, text, OPNAME_RE, lambda m: rng.choice(ops))


def m_drop_attribute(rng, text, _ops):
    return _replace_match(rng, text, ATTR_RE, lambda m: "")


def m_string(rng, text, _ops):
    strings = sorted(set(STRING_RE.findall(text)))
    choices = strings + ['""', '"nope"', '"x y"', '"' + "a" * 300 + '"']
    return _replace_match(rng, text, STRING_RE, lambda m: rng.choice(choices))


def m_ssa_value(rng, text, _ops):
    names = sorted(set(SSA_RE.findall(text)))
    if len(names) < 2:
        return None
    return _replace_match(rng, text, SSA_RE, lambda m: rng.choice(names))


def m_swap_lines(rng, text, _ops):
    lines = text.splitlines()
    if len(lines) < 2:
        return None
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines) + "\n"


def m_duplicate_lines(rng, text, _ops):
    lines = text.splitlines()
    if not lines:
        return None
    i = rng.randrange(len(lines))
    j = min(len(lines), i + 1 + (rng.randrange(6) if rng.random() < 0.3 else 0))
    at = rng.randrange(len(lines) + 1)
    return "\n".join(lines[:at] + lines[i:j] + lines[at:]) + "\n"


def m_delete_lines(rng, text, _ops):
    lines = text.splitlines()
    if not lines:
        return None
    i = rng.randrange(len(lines))
    j = min(len(lines), i + 1 + (rng.randrange(4) if rng.random() < 0.3 else 0))
    return "\n".join(lines[:i] + lines[j:]) + "\n"


def m_truncate(rng, text, _ops):
    if len(text) < 2:
        return None
    return text[:rng.randrange(1, len(text))]


def m_delete_token(rng, text, _ops):
    tokens = list(re.finditer(r"[\w.%@#^]+|[^\s\w]", text))
    if not tokens:
        return None
    t = rng.choice(tokens)
    return text[:t.start()] + text[t.end():]


# Weights: mostly mutations that keep the text parseable, so that the
# passes behind the parser see many of them.
MUTATIONS = [
    (m_int_literal, 10), (m_retype, 6), (m_float_literal, 3), (m_string, 2),
    (m_drop_attribute, 2), (m_swap_lines, 2), (m_ssa_value, 1), (m_shape, 1),
    (m_element_type, 1), (m_op_name, 1), (m_duplicate_lines, 1),
    (m_delete_lines, 1), (m_truncate, 1), (m_delete_token, 1),
]


def make_mutant(seed, index, corpus, ops):
    """Mutant `index` of `seed`: (origin, text, mutation names, pipelines)."""
    rng = random.Random("%d:%d" % (seed, index))
    # Inputs that are invalid to begin with (the verifier tests) are picked
    # one time in eight: mutants of valid inputs reach the passes.
    valid, invalid = corpus
    pool = invalid if invalid and rng.random() < 0.125 else valid
    origin, text, pipelines = pool[rng.randrange(len(pool))]
    applied = []
    count = 1
    while count < 4 and rng.random() < 0.35:
        count += 1
    funcs = [f for f, _ in MUTATIONS]
    weights = [w for _, w in MUTATIONS]
    tries = 0
    while len(applied) < count and tries < 20:
        tries += 1
        f = rng.choices(funcs, weights)[0]
        new = f(rng, text, ops)
        if new is None or new == text:
            continue
        text = new
        applied.append(f.__name__[2:])
    value = rng.choice(OPTION_VALUES)
    options = [o.format(v=value) for o in rng.choice(OPTION_PIPELINES)]
    return origin, text, applied, pipelines + [options]


# --------------------------------------------------------------------------
# Running the tools and judging the outcome
# --------------------------------------------------------------------------

def is_sanitized(tool):
    try:
        with open(tool, "rb") as f:
            return b"__asan_init" in f.read()
    except OSError:
        return False


def limit_memory():
    # Uninstrumented tools only (ASan reserves terabytes of address space):
    # a mutant that makes the compiler allocate without bound fails there
    # with a crash instead of taking the machine's memory.
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))


def run_tool(tools, tool, args, path, timeout, output=os.devnull):
    """(exit status or 'timeout', stderr)."""
    cmd = [os.path.join(tools["dir"], tool), path] + args + ["-o", output]
    try:
        proc = subprocess.run(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, timeout=timeout, env=tools["env"],
            start_new_session=True,
            preexec_fn=None if tools["sanitized"] else limit_memory)
        err = proc.stderr.decode("utf-8", "replace")
        return proc.returncode, err
    except subprocess.TimeoutExpired as e:
        err = (e.stderr or b"").decode("utf-8", "replace")
        return "timeout", err


def judge(status, stderr):
    """None for an accepted outcome, else a signature of the finding."""
    if status == "timeout":
        return "hang"
    marker = next((m for m in CRASH_MARKERS if m in stderr), None)
    if marker is None and status in (0, 1):
        if status == 1 and not LOCATED_ERROR_RE.search(stderr):
            first = next((l for l in stderr.splitlines() if "error" in l),
                         stderr.strip().splitlines()[0] if stderr.strip()
                         else "(no output)")
            return "unlocated error: " + normalize_message(first)
        return None
    if status not in (0, 1) and status < 0:
        kind = "signal %s" % signal.Signals(-status).name
    else:
        kind = "exit %s" % status
    san = SANITIZER_LINE_RE.search(stderr)
    if san:
        # The kind of report without its values (which differ from mutant
        # to mutant for one bug): "X.cpp:490:26: runtime error: signed
        # integer overflow", "ERROR: AddressSanitizer: heap-buffer-overflow".
        line = re.sub(r"(runtime error: [^:]*):.*", r"\1", san.group(1))
        line = re.sub(r"(Sanitizer: [\w-]+).*", r"\1", line)
        detail = normalize(line)
    else:
        detail = normalize(next((l for l in stderr.splitlines()
                                 if any(m in l for m in CRASH_MARKERS[:4])),
                                ""))
    frame = first_frame(stderr)
    return ": ".join(x for x in (kind, detail) if x) + \
        (" in " + frame if frame and frame not in detail else "")


FRAME_RE = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ (?:in )?(.*)$")
RUNTIME_FRAME = re.compile(
    r"sanitizer|__ubsan|__asan|__lsan|__interceptor|libc\.so|libLLVM|"
    r"libMLIR|libstdc|PrintStackTrace|SignalHandler|\babort\b|\braise\b|"
    r"pthread_kill|crtstuff|^\(/|\boperator (?:new|delete)|"
    r"\b(?:malloc|calloc|realloc|free)\b")
SOURCE_LOC = re.compile(r"(\S+\.(?:cpp|h|inc|td)):(\d+)")


def first_frame(stderr):
    """The innermost frame of a stack trace in this project's code: its
    file:line when there is debug information, else its function."""
    for line in stderr.splitlines():
        m = FRAME_RE.match(line)
        if not m or RUNTIME_FRAME.search(m.group(1)):
            continue
        loc = SOURCE_LOC.search(m.group(1))
        if loc:
            return "%s:%s" % (os.path.basename(loc.group(1)), loc.group(2))
        return re.sub(r" \(\S+\+0x[0-9a-f]+\)$", "", m.group(1))[:120]
    return ""


def evaluate(tools, tool, args, path, timeout):
    """Runs one pipeline: (status, stderr, signature or None).

    A located error from sdfg-opt's passes on an input that verifies is
    either a diagnostic of a pass or the verifier rejecting IR that a pass
    produced (a compiler bug, reported at an op of the input all the same).
    To tell them apart the pipeline runs again without verification between
    passes: if it then succeeds, its output must parse and verify."""
    status, err = run_tool(tools, tool, args, path, timeout)
    sig = judge(status, err)
    if sig or status != 1 or tool != "sdfg-opt" or not args:
        return status, err, sig
    out = path + ".out.mlir"
    try:
        status2, err2 = run_tool(tools, tool, args + ["--verify-each=false"],
                                 path, timeout, output=out)
        sig = judge(status2, err2)
        if sig:
            return status2, err2, "without --verify-each: " + sig
        if status2 != 0:
            return status, err, None  # the pass's own diagnostic
        status3, err3 = run_tool(tools, "sdfg-opt", [], out, timeout)
        if status3 == 0:
            return status, err, None  # only the verifier between passes?
        first = next((l for l in err3.splitlines() if "error:" in l), "")
        first = re.sub(r"^\S*:\d+:\d+: ", "", first)
        return status, err + "\n--- its output, parsed again:\n" + err3, \
            "invalid IR out of the passes: " + normalize_message(first)
    finally:
        if os.path.exists(out):
            os.unlink(out)


def normalize_message(line):
    """A diagnostic without the types and numbers of one mutant."""
    line = re.sub(r"'[^']*<[^']*>'", "'TYPE'", normalize(line))
    return re.sub(r"-?\b\d+\b", "N", line)


def normalize(line):
    """A finding's line without what changes from run to run."""
    line = re.sub(r"/\S*/", "", line)  # directories
    line = re.sub(r"0x[0-9a-f]+", "0x?", line)
    line = re.sub(r"\btmp\w+\.mlir\b", "input.mlir", line)
    line = re.sub(r"==\d+==", "", line)
    return line.strip()[:200]


# The pretty stack trace's parser entries ("1.\tMLIR Parser: custom op
# parser 'linalg.reduce'") and any pass entry: a crash with the innermost
# parser entry at an op of another dialect and no pass running is MLIR's
# own parser failing on the mutant (seen: linalg.reduce with a dimension
# of 2^63 crashes mlir-opt 22 as well). Not this project's bug and not
# fixable here: counted and listed, not a finding.
PARSER_ENTRY_RE = re.compile(r"MLIR Parser: custom op parser '([\w.]+)'")


def upstream_parser_crash(status, stderr):
    """The op whose MLIR parser crashed, for a crash while parsing in
    another dialect's custom parser; else None."""
    if status in (0, 1) or status == "timeout":
        return None
    ops = PARSER_ENTRY_RE.findall(stderr)
    if not ops or ops[-1].startswith("sdfg.") or "Running pass" in stderr:
        return None
    return ops[-1]


def check_text(tools, text, pipelines, timeout, workdir, tag):
    """Runs every pipeline on `text`.

    Returns ([(tool, args, status, stderr, signature)], runs, parsed)."""
    path = os.path.join(workdir, "m%s.mlir" % tag)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    findings = []
    runs = 1
    try:
        status, err, sig = evaluate(tools, "sdfg-opt", [], path, timeout)
        upstream = upstream_parser_crash(status, err)
        if sig and upstream:
            findings.append(("sdfg-opt", [], status, err,
                             "upstream: MLIR's parser of " + upstream))
        elif sig:
            findings.append(("sdfg-opt", [], status, err, sig))
        if status != 0:
            # The input does not parse or verify: nothing more to try.
            return findings, runs, False
        seen = {("sdfg-opt", ())}
        for tool, args in FIXED_PIPELINES[1:] + [("sdfg-opt", p)
                                                 for p in pipelines]:
            key = (tool, tuple(args))
            if key in seen:
                continue
            seen.add(key)
            runs += 1
            status, err, sig = evaluate(tools, tool, args, path, timeout)
            if sig:
                findings.append((tool, args, status, err, sig))
    finally:
        os.unlink(path)
    return findings, runs, True


def finding_id(sig):
    return hashlib.sha1(sig.encode()).hexdigest()[:10]


def save_finding(out, text, tool, args, status, stderr, sig, origin):
    os.makedirs(out, exist_ok=True)
    fid = finding_id(sig)
    base = os.path.join(out, "crash-" + fid)
    with open(base + ".mlir", "w", encoding="utf-8") as f:
        f.write(text)
    meta = {"tool": tool, "args": args, "status": status, "signature": sig,
            "origin": origin,
            "command": "%s %s.mlir %s -o /dev/null" % (
                tool, base, " ".join(shlex.quote(a) for a in args)),
            "stderr": stderr if len(stderr) < 8000
            else stderr[:4000] + "\n[...]\n" + stderr[-4000:]}
    with open(base + ".json", "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1)
    return base


# --------------------------------------------------------------------------
# Reduction: drop chunks of lines (then single lines) while the same
# signature comes out of the same command.
# --------------------------------------------------------------------------

def reduce_text(tools, text, tool, args, sig, timeout, deadline, workdir):
    def still_fails(candidate):
        path = os.path.join(workdir, "reduce.mlir")
        with open(path, "w", encoding="utf-8") as f:
            f.write(candidate)
        return evaluate(tools, tool, args, path, timeout)[2] == sig

    lines = text.splitlines()
    size = max(1, len(lines) // 2)
    while size >= 1 and time.time() < deadline:
        i = 0
        changed = False
        while i < len(lines) and time.time() < deadline:
            candidate = lines[:i] + lines[i + size:]
            if candidate and still_fails("\n".join(candidate) + "\n"):
                lines = candidate
                changed = True
            else:
                i += size
        if not changed:
            size //= 2
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------

def tool_setup(build):
    tools_dir = os.path.join(build, "bin")
    for t in ("sdfg-opt", "sdfg-translate"):
        if not os.access(os.path.join(tools_dir, t), os.X_OK):
            sys.exit("fuzz.py: no %s in %s (build first, or pass --build)"
                     % (t, tools_dir))
    env = dict(os.environ)
    # A sanitized build has strict defaults of its own (abort on every
    # report: tools/SanitizerOptions.cpp). On top of them: one allocation
    # of more than 8 GiB is a finding too (the compiler has no business
    # allocating that for a mutated test), instead of taking the machine.
    asan = "max_allocation_size_mb=8192"
    if env.get("ASAN_OPTIONS"):
        asan += ":" + env["ASAN_OPTIONS"]  # the caller's options win
    env["ASAN_OPTIONS"] = asan
    env["LLVM_DISABLE_CRASH_REPORT"] = "1"
    sanitized = is_sanitized(os.path.join(tools_dir, "sdfg-opt"))
    return {"dir": tools_dir, "env": env, "sanitized": sanitized}


def harness_check(tools, workdir):
    """The judge on known outcomes, then on real runs of the tools: a
    harness that cannot see a finding would pass every run."""
    canned = [
        ((0, ""), False), (("timeout", ""), True), ((-11, ""), True),
        ((2, ""), True), ((1, "in.mlir:3:5: error: 'sdfg.map' op bad"), False),
        ((1, "error: something without a place"), True),
        ((1, "<unknown>:0: error: no place either"), True),
        ((0, "in.mlir:1:1: runtime error: signed integer overflow"), True),
        ((-6, "==1==ERROR: AddressSanitizer: heap-buffer-overflow"), True),
        ((1, "LLVM ERROR: out of memory"), True),
    ]
    for (status, err), bad in canned:
        if (judge(status, err) is not None) != bad:
            sys.exit("fuzz.py: harness check failed on %r" % ((status, err),))
    path = os.path.join(workdir, "check.mlir")
    with open(path, "w", encoding="utf-8") as f:
        f.write("sdfg.no_such_op\n")
    located = judge(*run_tool(tools, "sdfg-opt", [], path, 60))
    unlocated = judge(*run_tool(tools, "sdfg-opt", ["--no-such-option"],
                                path, 60))
    os.unlink(path)
    if located is not None or unlocated is None:
        sys.exit("fuzz.py: harness check failed: a located parse error gave "
                 "%r, an unknown option %r" % (located, unlocated))


def fuzz(opts):
    tools = tool_setup(opts.build)
    corpus = load_corpus(os.path.join(ROOT, opts.corpus))
    if not corpus[0]:
        sys.exit("fuzz.py: no inputs match " + opts.corpus)
    ops = sorted({op for part in corpus for _, text, _ in part
                  for op in OPNAME_RE.findall(text)})
    print("fuzz: seed %d, %d+%d inputs from %s, tools in %s%s, budget %s"
          % (opts.seed, len(corpus[0]), len(corpus[1]), opts.corpus,
             tools["dir"],
             " (sanitized)" if tools["sanitized"] else "",
             ("%d mutants" % opts.count if opts.count else "")
             + (" " if opts.count and opts.seconds else "")
             + ("%g s" % opts.seconds if opts.seconds else "")), flush=True)

    start = time.time()
    deadline = start + opts.seconds if opts.seconds else float("inf")
    limit = opts.count or float("inf")
    lock = threading.Lock()
    state = {"next": 0, "done": 0, "runs": 0, "parsed": 0}
    found = {}  # signature key -> record
    upstream = {}  # "upstream: ..." -> mutants

    workdir = tempfile.mkdtemp(prefix="sdfg-fuzz-")
    harness_check(tools, workdir)

    def worker():
        while True:
            with lock:
                index = state["next"]
                if index >= limit or time.time() >= deadline:
                    return
                state["next"] += 1
            origin, text, applied, pipelines = make_mutant(
                opts.seed, index, corpus, ops)
            findings, runs, parsed = check_text(
                tools, text, pipelines, opts.timeout, workdir, "%d" % index)
            with lock:
                state["done"] += 1
                state["runs"] += runs
                state["parsed"] += parsed
                for tool, args, status, err, sig in findings:
                    if sig.startswith("upstream: "):
                        if sig not in upstream:
                            print("UPSTREAM %s crashes on mutant %d of %s "
                                  "(%s): not a finding" % (
                                      sig[len("upstream: "):], index,
                                      origin, ", ".join(applied)),
                                  flush=True)
                        upstream[sig] = upstream.get(sig, 0) + 1
                        continue
                    # One bug reached by several pipelines is one finding.
                    key = sig
                    if key in found:
                        found[key]["count"] += 1
                        continue
                    base = save_finding(opts.out, text, tool, args, status,
                                        err, sig, "%s (seed %d, mutant %d: %s)"
                                        % (origin, opts.seed, index,
                                           ", ".join(applied)))
                    found[key] = {"base": base, "count": 1, "index": index,
                                  "text": text, "tool": tool, "args": args}
                    print("FINDING %s\n  %s %s\n  from %s, mutant %d (%s)\n"
                          "  saved %s.mlir" % (
                              sig, tool, " ".join(args), origin, index,
                              ", ".join(applied), base), flush=True)

    with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        for f in [pool.submit(worker) for _ in range(opts.jobs)]:
            f.result()

    elapsed = time.time() - start
    print("fuzz: %d mutants (%d parsed and verified, %d tool runs) in %.0f s,"
          " %d distinct findings" % (state["done"], state["parsed"],
                                     state["runs"], elapsed, len(found))
          + ("; %d crashes of MLIR's own parsers (%s)" % (
              sum(upstream.values()),
              ", ".join(k[len("upstream: MLIR's parser of "):]
                        for k in sorted(upstream))) if upstream else ""),
          flush=True)

    if opts.minimize:
        for sig, rec in sorted(found.items(), key=lambda kv: kv[1]["index"]):
            small = reduce_text(tools, rec["text"], rec["tool"], rec["args"],
                                sig, opts.timeout,
                                time.time() + opts.reduce_seconds, workdir)
            with open(rec["base"] + ".min.mlir", "w", encoding="utf-8") as f:
                f.write(small)
            print("reduced %s.mlir: %d -> %d lines" % (
                rec["base"], rec["text"].count("\n"), small.count("\n")))
    shutil.rmtree(workdir, ignore_errors=True)
    for sig, rec in sorted(found.items(), key=lambda kv: kv[1]["index"]):
        print("  %dx %s\n     %s %s.mlir %s" % (
            rec["count"], sig, rec["tool"], rec["base"],
            " ".join(shlex.quote(a) for a in rec["args"])))
    return 1 if found else 0


def load_meta(mlir_path):
    base = mlir_path[:-len(".min.mlir")] if mlir_path.endswith(".min.mlir") \
        else mlir_path[:-len(".mlir")]
    with open(base + ".json", encoding="utf-8") as f:
        return base, json.load(f)


def reduce_main(opts):
    tools = tool_setup(opts.build)
    base, meta = load_meta(opts.reduce)
    with open(opts.reduce, encoding="utf-8") as f:
        text = f.read()
    workdir = tempfile.mkdtemp(prefix="sdfg-fuzz-")
    path = os.path.join(workdir, "r.mlir")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    sig = evaluate(tools, meta["tool"], meta["args"], path, opts.timeout)[2]
    if sig is None:
        print("%s: no longer fails (%s %s)" % (opts.reduce, meta["tool"],
                                               " ".join(meta["args"])))
        return 0
    small = reduce_text(tools, text, meta["tool"], meta["args"], sig,
                        opts.timeout, time.time() + opts.reduce_seconds,
                        workdir)
    out = base + ".min.mlir"
    with open(out, "w", encoding="utf-8") as f:
        f.write(small)
    shutil.rmtree(workdir, ignore_errors=True)
    print("%s: %s\n  %d -> %d lines in %s" % (opts.reduce, sig,
                                              text.count("\n"),
                                              small.count("\n"), out))
    return 1


def replay_main(opts):
    tools = tool_setup(opts.build)
    failing = 0
    workdir = tempfile.mkdtemp(prefix="sdfg-fuzz-")
    for meta_path in sorted(glob.glob(os.path.join(opts.replay, "*.json"))):
        base = meta_path[:-len(".json")]
        with open(meta_path, encoding="utf-8") as f:
            meta = json.load(f)
        src = base + ".min.mlir" if os.path.exists(base + ".min.mlir") \
            else base + ".mlir"
        with open(src, encoding="utf-8") as f:
            text = f.read()
        path = os.path.join(workdir, "replay.mlir")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        sig = evaluate(tools, meta["tool"], meta["args"], path,
                       opts.timeout)[2]
        print("%-8s %s  (%s %s)" % ("FAILS" if sig else "ok", src,
                                    meta["tool"], " ".join(meta["args"])))
        if sig:
            print("         " + sig)
            failing += 1
        os.unlink(path)
    shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failing else 0


def main():
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--seconds", type=float, default=0,
                   help="stop starting mutants after this long")
    p.add_argument("--count", type=int, default=0,
                   help="run mutants 0..COUNT-1 of the seed")
    p.add_argument("--build", default=os.environ.get(
        "SDFG_BUILD_DIR", os.path.join(ROOT, "build")),
        help="build folder with bin/sdfg-opt (default $SDFG_BUILD_DIR or build/)")
    p.add_argument("--corpus", default="test/**/*.mlir",
                   help="glob of inputs, relative to the repository")
    p.add_argument("--out", default=None,
                   help="folder for findings (default BUILD/fuzz-crashes)")
    p.add_argument("--timeout", type=float, default=20,
                   help="seconds per run before it counts as a hang")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--minimize", action="store_true",
                   help="also write a line-reduced .min.mlir per finding")
    p.add_argument("--reduce-seconds", type=float, default=60,
                   help="time limit of one reduction")
    p.add_argument("--reduce", metavar="CRASH.mlir",
                   help="reduce a saved finding (needs its .json next to it)")
    p.add_argument("--replay", metavar="DIR",
                   help="run the saved findings in DIR again")
    opts = p.parse_args()
    if opts.out is None:
        opts.out = os.path.join(opts.build, "fuzz-crashes")
    if opts.reduce:
        return reduce_main(opts)
    if opts.replay:
        return replay_main(opts)
    if not opts.seconds and not opts.count:
        p.error("give a budget: --seconds and/or --count")
    return fuzz(opts)


if __name__ == "__main__":
    sys.exit(main())
