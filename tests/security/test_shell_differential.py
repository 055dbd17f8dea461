"""The shell parser against bash itself: generated commands, run traced.

A seeded generator builds commands from a grammar (words, quotes, ``$'...'``, globs, tildes,
redirections, pipes, ``;``/``&&``/``||``, wrappers, subshells, substitutions, ``cd``, ``for``
loops, ``sh -c``, and the options that make programs write or run things). Each command the
permission check allows in default mode with no rules (the read-only auto-allow) runs under
``strace -f`` in a fresh scratch workspace, confined by bubblewrap (or ``unshare -n``), with a
fake HOME. Then:

- it wrote nothing (no open for writing, create, rename, link or remove) but /dev/null, the
  tty and bash's own here-document files;
- every program bash executed is one the parser reported (a command's program or a wrapper);
- it read no file under the scratch root outside the workspace.

That is: "read-only" from the parser means read-only in bash.
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest

from agent.permissions.bash import BashCheck
from agent.permissions.policy import Policy
from agent.shell.parser import parse
from agent.shell.words import ShellParseError
from tests.security.shell_trace import (
    harmless_write,
    read_trace,
    sandbox_prefix,
    traced_run,
    tracing_works,
)
from tools.base import ToolContext

SEED = 1616
COMMANDS = 1000

_READERS = [
    "cat",
    "head -n 1",
    "tail -n 1",
    "wc -l",
    "ls",
    "ls -la",
    "grep -n a",
    "grep -rn x",
    "grep -R x",
    "sort",
    "sort -r",
    "uniq",
    "cut -c1-3",
    "od -c",
    "stat",
    "md5sum",
    "sed -n 1p",
    "awk '{print $1}'",
    "nl",
    "tac",
    "du -s",
    "cmp a.txt",
    "diff a.txt",
    "find",
    "find -L",
    "tree",
    "file",
    "rg x",
]
_PLAIN = ["echo", "printf '%s\\n'", "true", "pwd", "test -e", "[ -e x ] ||", "basename", "id"]
_PATHS = [
    "a.txt",
    "b.py",
    "sub/c.txt",
    "sub",
    ".",
    "*.txt",
    "sub/*",
    "s?b/c.txt",
    "../outside/secret.txt",
    "link_out/secret.txt",
    "link_out",
    "~/h.txt",
    "~",
    "~+/../outside/secret.txt",
    "~-/secret.txt",
    "'a.txt'",
    '"sub/c.txt"',
    "$'a.txt'",
    "$'\\x61.txt'",
    "$'../outside/secret\\x2etxt'",
    "{a,b}.txt",
    "$HOME/h.txt",
    '"$f"',
    "$f",
    "nonexistent",
    "a\\.txt",
    "../ws/a.txt",
    "sub/../a.txt",
    "sub/../../outside/secret.txt",
]
_REDIRECTS = [
    "",
    "",
    "",
    " > out.txt",
    " >> out.txt",
    " 2>/dev/null",
    " < a.txt",
    " >/dev/null 2>&1",
    " &>/dev/null",
    " 2> err.txt",
    " > ../outside/o.txt",
    " <<< a.txt",
    " <<EOF\na.txt\nEOF\n",
]
_WRITERS = [
    "touch out.txt",
    "rm -f a.txt",
    "mkdir newdir",
    "cp a.txt copy.txt",
    "mv a.txt moved.txt",
    "tee out.txt",
    "sort -o out.txt a.txt",
    "sort --o=out.txt a.txt",
    "sort -roout.txt a.txt",
    "find . -name a.txt -delete",
    "find . -exec touch {}.x \\;",
    "find . $'-exec\\0' touch x \\;",
    "find . -fprint out.txt",
    "sed -n 'w out.txt' a.txt",
    "sed -i s/a/b/ a.txt",
    "awk 'BEGIN{system(\"touch q\")}'",
    "awk '{print > \"out.txt\"}' a.txt",
    "OPTIND='a[$(touch x)]'",
    "RANDOM='a[$(touch x)]'",
    "sh -c 'echo &>/dev/null touch z'",
    "xargs -I{} touch {}",
    "git init -q g",
    "ln -s a.txt l",
    "dd if=a.txt of=out.txt",
    "truncate -s0 a.txt",
    "echo a.txt | xargs touch",
    "printf -v 'a[$(touch x)]' v",
    "[[ -v a[$(touch x)] ]]",
    "declare -i n='a[$(touch x)]'",
    "let 'a[$(touch x)]'",
    "tar -cf out.tar a.txt",
]
_WRAPPERS = ["", "", "", "env ", "timeout 5 ", "nice ", "command ", "env LANG=C ", "LC_ALL=C "]
_WRAPPERS += ["GIT_PAGER=cat ", "stdbuf -o0 ", "time ", "builtin ", "exec ", "PAGER=less "]
_CDS = ["", "", "", "cd sub && ", "cd sub; ", "cd nonexistent; ", "cd ..; ", "cd link_out && "]
_CDS += ["cd -P sub; ", "cd .. && ", "(cd sub); ", "cd ~ && ", "pushd sub >/dev/null; "]


_LISTERS = ["find . -name '*.txt'", "find sub", "ls", "echo ../outside/secret.txt", "find -L ."]


def _simple(rnd: random.Random) -> str:
    roll = rnd.random()
    if roll < 0.12:
        return rnd.choice(_WRITERS)
    if roll < 0.25:
        return f"{rnd.choice(_PLAIN)} {rnd.choice(_PATHS)}"
    words = " ".join(rnd.choice(_PATHS) for _ in range(rnd.randint(0, 2)))
    return f"{rnd.choice(_WRAPPERS)}{rnd.choice(_READERS)} {words}".rstrip()


def _command(rnd: random.Random, depth: int = 0) -> str:
    roll = rnd.random()
    if depth < 2 and roll < 0.08:
        return f"( {_command(rnd, depth + 1)} )"
    if depth < 2 and roll < 0.14:
        return f"{{ {_command(rnd, depth + 1)}; }}"
    if depth < 2 and roll < 0.20:
        return f"echo $({_command(rnd, depth + 1)})"
    if depth < 2 and roll < 0.25:
        inner = _simple(rnd).replace("'", "")
        return f"{rnd.choice(['sh', 'bash', 'dash'])} -c '{inner}'"
    if depth < 2 and roll < 0.32:
        body = _simple(rnd)
        return f'for f in {rnd.choice(_PATHS)} {rnd.choice(_PATHS)}; do {body} "$f"; done'
    if depth < 2 and roll < 0.38:
        lister = rnd.choice(_LISTERS)
        return f"{lister} | xargs {rnd.choice(_READERS)}"
    cmd = _simple(rnd) + rnd.choice(_REDIRECTS)
    if depth < 2 and rnd.random() < 0.35:
        op = rnd.choice([" ; ", " && ", " || ", " | "])
        cmd = f"{cmd}{op}{_command(rnd, depth + 1)}"
    return cmd


def generated(count: int, seed: int = SEED) -> list[str]:
    """``count`` distinct commands from the grammar, the same ones for the same seed."""
    rnd = random.Random(seed)
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < count:
        cmd = rnd.choice(_CDS) + _command(rnd)
        if cmd not in seen:
            seen.add(cmd)
            out.append(cmd)
    return out


def _scratch(root: Path) -> tuple[Path, Path]:
    """A fresh workspace and fake HOME under ``root``, with files outside to catch reads."""
    if root.exists():
        shutil.rmtree(root)
    ws, home, outside = root / "ws", root / "home", root / "outside"
    for d in (ws / "sub", home, outside):
        d.mkdir(parents=True)
    (ws / "a.txt").write_text("alpha\nbeta\n")
    (ws / "b.py").write_text("print(1)\n")
    (ws / "sub" / "c.txt").write_text("gamma\n")
    (home / "h.txt").write_text("home\n")
    (outside / "secret.txt").write_text("SECRET\n")
    os.symlink(outside, ws / "link_out")
    return ws, home


def _reported_programs(command: str) -> set[str]:
    """Every program name the parser found: commands, wrappers, shells of ``sh -c``."""
    names = {"bash", "env"}
    for cmd in parse(command).commands:
        for layer in (cmd.argv, *cmd.layers):
            if layer and layer[0].static:
                names.add(os.path.basename(layer[0].value))
        if cmd.open_args and not cmd.argv:
            names.add("echo")
    return names


def violations(command: str, root: Path, ws: Path, trace_programs: list[str], trace) -> list[str]:
    """What the traced run did that a read-only command must not."""
    problems = [f"wrote {p}" for p in trace.writes if not harmless_write(p, root)]
    reported = _reported_programs(command)
    for program in trace_programs:
        if os.path.basename(program) not in reported:
            problems.append(f"executed {program}")
    for path in trace.reads:
        outside = path.startswith(f"{root}/") and not path.startswith((f"{ws}/", f"{root}/tmp/"))
        if outside and path != str(ws):
            problems.append(f"read {path}")
    return problems


@pytest.fixture(scope="module")
def prefix(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    root = tmp_path_factory.mktemp("differential")
    found = sandbox_prefix(root)
    if found is None or not tracing_works(root):
        pytest.skip("needs strace and bubblewrap or unshare -n")
    return root, found


def test_the_trace_reader_sees_writes_execs_and_reads_outside(
    prefix: tuple[Path, list[str]],
) -> None:
    """The oracle can fail: commands that write, execute and read outside are caught."""
    root, confine = prefix
    scratch = root / "oracle"
    ws, home = _scratch(scratch)
    command = "cat ../outside/secret.txt; touch out.txt; find . -name a.txt -exec true \\;"
    trace = traced_run(command, scratch, ws, home, confine)
    found = violations("cat x", scratch, ws, trace.programs, trace)
    assert f"wrote {ws}/out.txt" in found
    assert any(p.startswith("executed") and p.endswith("/touch") for p in found)
    assert f"read {scratch}/outside/secret.txt" in found
    assert "SECRET" in trace.output


def test_read_trace_joins_unfinished_calls() -> None:
    log = (
        '10 openat(AT_FDCWD, "x", O_WRONLY|O_CREAT <unfinished ...>\n'
        '11 chdir("/") = 0\n'
        "10 <... openat resumed>, 0666) = 3\n"
        '11 openat(AT_FDCWD, "etc/passwd", O_RDONLY) = 3\n'
    )
    trace = read_trace(log, "/w")
    assert trace.writes == ["/w/x"] and trace.reads == ["/etc/passwd"]


def test_read_only_means_read_only_in_bash(
    prefix: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, confine = prefix
    scratch = root / "run"
    commands = generated(COMMANDS)
    ran, failures = 0, []
    for command in commands:
        ws, home = _scratch(scratch)
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.delenv("CDPATH", raising=False)
        ctx = ToolContext(ws)
        decision = BashCheck(Policy("default"), ctx).run(command)
        if decision.verdict != "allow":
            continue
        try:
            parse(command)
        except ShellParseError:  # pragma: no cover - an allowed command always parses
            failures.append(f"{command!r}: allowed but does not parse")
            continue
        trace = traced_run(command, scratch, ws, home, confine)
        ran += 1
        problems = violations(command, scratch, ws, trace.programs, trace)
        if problems:
            failures.append(f"{command!r}: {problems}")
    assert not failures, "\n".join(failures)
    # enough of the generated commands are allowed for the comparison to mean something
    assert ran >= 100, ran


def test_accept_edits_file_commands_write_only_inside(
    prefix: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What acceptEdits allows beyond the read-only set writes inside the workspace only,
    runs only programs the parser reported and reads nothing outside."""
    root, confine = prefix
    scratch = root / "edits"
    ran, failures = 0, []
    for command in generated(COMMANDS):
        ws, home = _scratch(scratch)
        monkeypatch.setenv("HOME", str(home))
        ctx = ToolContext(ws)
        if BashCheck(Policy("acceptEdits"), ctx).run(command).verdict != "allow":
            continue
        if BashCheck(Policy("default"), ctx).run(command).verdict == "allow":
            continue  # read-only: the test above runs it
        trace = traced_run(command, scratch, ws, home, confine)
        ran += 1
        problems = [
            f"wrote {p}"
            for p in trace.writes
            if not harmless_write(p, scratch) and not p.startswith(f"{ws}/")
        ]
        problems += [
            p for p in violations(command, scratch, ws, trace.programs, trace) if "wrote" not in p
        ]
        if problems:
            failures.append(f"{command!r}: {problems}")
    assert not failures, "\n".join(failures)
    assert ran >= 20, ran
