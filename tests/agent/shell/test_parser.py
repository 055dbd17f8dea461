"""The shell parser the permission layer relies on: what runs, what is read, what is written."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.shell.parser import parse, split_words
from agent.shell.readonly import read_only
from agent.shell.words import ShellParseError


def argvs(source: str) -> list[list[str]]:
    """The argv (values) of every command, in order."""
    return [[w.value for w in c.argv] for c in parse(source).commands]


def layers(source: str) -> list[list[list[str]]]:
    return [[[w.value for w in layer] for layer in c.layers] for c in parse(source).commands]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("ls -la", [["ls", "-la"]]),
        ("git status && git diff", [["git", "status"], ["git", "diff"]]),
        ("a || b; c & d | e |& f", [["a"], ["b"], ["c"], ["d"], ["e"], ["f"]]),
        ("a\nb\n\nc", [["a"], ["b"], ["c"]]),
        ("(cd x && make)", [["cd", "x"], ["make"]]),
        ("{ ls; pwd; }", [["ls"], ["pwd"]]),
        (
            "if test -f x; then rm x; else echo no; fi",
            [["test", "-f", "x"], ["rm", "x"], ["echo", "no"]],
        ),
        ("while true; do sleep 1; done", [["true"], ["sleep", "1"]]),
        ("for f in a b; do wc -l $f; done", [["wc", "-l", "$f"]]),
        ("! grep -q x f", [["grep", "-q", "x", "f"]]),
        ("echo $(rm -rf /)", [["rm", "-rf", "/"], ["echo", "$(rm -rf /)"]]),
        ("echo `rm x`", [["rm", "x"], ["echo", "`rm x`"]]),
        ('echo "a $(b "c d") e"', [["b", "c d"], ["echo", 'a $(b "c d") e']]),
        ("echo $(echo $(rm y))", [["rm", "y"], ["echo", "$(rm y)"], ["echo", "$(echo $(rm y))"]]),
        ("diff <(sort a) <(rm b)", [["sort", "a"], ["rm", "b"], ["diff", "<(sort a)", "<(rm b)"]]),
        ("tee >(rm x)", [["rm", "x"], ["tee", ">(rm x)"]]),
        ("'r'm x", [["rm", "x"]]),
        ("\\rm x", [["rm", "x"]]),
        ('"rm" "a b"', [["rm", "a b"]]),
        ("r\\\nm x", [["rm", "x"]]),
        ("echo a # ; rm x", [["echo", "a"]]),
        ("echo a#b", [["echo", "a#b"]]),
        ("echo $'a\\'b'", [["echo", "a'b"]]),
        ("FOO=1 BAR=2 rm x", [["rm", "x"]]),
        ("X=$(rm x)", [["rm", "x"], []]),
        ("[[ -f x && $(rm y) ]] && ls", [["rm", "y"], ["[["], ["ls"]]),
        ("cat <<EOF\nhello $(rm z)\nEOF\nls", [["rm", "z"], ["cat"], ["ls"]]),
        ("cat <<'EOF'\nhello $(rm z)\nEOF", [["cat"]]),
        ("cat <<-EOF\n\tbody\n\tEOF\necho done", [["cat"], ["echo", "done"]]),
        (
            "git commit -m \"$(cat <<'EOF'\nmsg $(not run)\nEOF\n)\"",
            [["cat"], ["git", "commit", "-m", "$(cat <<'EOF'\nmsg $(not run)\nEOF\n)"]],
        ),
        ("cat <<< $(rm w)", [["rm", "w"], ["cat"]]),
    ],
)
def test_commands_found(source: str, expected: list[list[str]]) -> None:
    assert argvs(source) == expected


@pytest.mark.parametrize(
    ("source", "inner", "outer"),
    [
        ("timeout 5 rm x", ["rm", "x"], ["timeout", "5", "rm", "x"]),
        (
            "timeout -s KILL -k 3 5 rm x",
            ["rm", "x"],
            ["timeout", "-s", "KILL", "-k", "3", "5", "rm", "x"],
        ),
        ("env rm x", ["rm", "x"], ["env", "rm", "x"]),
        ("env -i A=1 -u B rm x", ["rm", "x"], ["env", "-i", "A=1", "-u", "B", "rm", "x"]),
        ("nice -n 10 rm x", ["rm", "x"], ["nice", "-n", "10", "rm", "x"]),
        ("nice -5 rm x", ["rm", "x"], ["nice", "-5", "rm", "x"]),
        ("nohup rm x", ["rm", "x"], ["nohup", "rm", "x"]),
        ("time -p rm x", ["rm", "x"], ["time", "-p", "rm", "x"]),
        ("command rm x", ["rm", "x"], ["command", "rm", "x"]),
        ("exec rm x", ["rm", "x"], ["exec", "rm", "x"]),
        ("stdbuf -oL rm x", ["rm", "x"], ["stdbuf", "-oL", "rm", "x"]),
        ("xargs rm", ["rm"], ["xargs", "rm"]),
        (
            "xargs -0 -n 1 -P 4 rm -f",
            ["rm", "-f"],
            ["xargs", "-0", "-n", "1", "-P", "4", "rm", "-f"],
        ),
        ("xargs", ["echo"], ["xargs"]),
        ("/usr/bin/env rm x", ["rm", "x"], ["/usr/bin/env", "rm", "x"]),
        (
            "timeout 5 nice env A=1 rm x",
            ["rm", "x"],
            ["timeout", "5", "nice", "env", "A=1", "rm", "x"],
        ),
    ],
)
def test_wrappers_are_seen_through(source: str, inner: list[str], outer: list[str]) -> None:
    (cmd,) = parse(source).commands
    assert [w.value for w in cmd.argv] == inner
    assert [w.value for w in cmd.layers[0]] == outer
    assert cmd.opaque is None
    assert cmd.open_args == ("xargs" in source)


def test_sudo_keeps_the_privileged_command_as_what_must_be_allowed() -> None:
    (cmd,) = parse("sudo -u root rm x").commands
    assert [w.value for w in cmd.argv] == ["sudo", "-u", "root", "rm", "x"]
    assert [[w.value for w in layer] for layer in cmd.layers][-1] == ["rm", "x"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('sh -c "rm x"', [[], ["rm", "x"]]),
        ("bash -c 'cd a && rm b'", [[], ["cd", "a"], ["rm", "b"]]),
        ("bash -e -o pipefail -c 'rm b'", [[], ["rm", "b"]]),
        ("eval 'rm x; ls'", [[], ["rm", "x"], ["ls"]]),
        ("bash -c \"bash -c 'rm deep'\"", [[], [], ["rm", "deep"]]),
        ('sh -c "sh -c rm"', [[], [], ["rm"]]),
        ("bash script.sh arg", [["bash", "script.sh", "arg"]]),
    ],
)
def test_shells_are_parsed_recursively(source: str, expected: list[list[str]]) -> None:
    assert argvs(source) == expected


@pytest.mark.parametrize(
    "source",
    [
        "$CMD x",  # the program is only known at run time
        "$(echo rm) x",
        "{rm,-rf,x}",  # brace expansion makes the program
        "r* x",  # a glob makes the program
        "timeout --weird 5 rm x",  # an option eddy does not know
        'sh -c "$X"',  # a script only known at run time
        "eval $X",
        "env -S 'rm x'",
        "nohup",
    ],
)
def test_opaque_commands(source: str) -> None:
    assert any(c.opaque for c in parse(source).commands)


@pytest.mark.parametrize(
    "source",
    [
        "echo 'unterminated",
        'echo "unterminated',
        "echo $(unterminated",
        "echo `unterminated",
        "case x in a) rm y;; esac) x",
        "echo $(case x in a) rm y;; esac)",  # a pattern's ) would end the substitution
        "true && f() { rm x; }; f",  # defined or not: a call may run the program f
        "for i in 1; do f() { rm x; }; done",
        "(f() { rm x; }); f",
        "f() { rm x; } > log; f",
        "f() { rm x; }; unset -f f; f",
        "f() { rm x; }; export -f f; bash -c f",
        "command_not_found_handle() { rm x; }; nothere",
        "a=(1 2)",
        "echo $((a[1] + 1))",  # a subscript runs command substitutions
        "echo $(($(id) + 1))",
        "echo ${!name}",  # indirection
        "echo ${a[$i]}",
        "echo ${s:1:2}",
        "[[ $(cat x) -eq 1 ]]",  # its output is evaluated as arithmetic
        "[[ -v x ]]",
        "echo $[1+2]",
        "for ((i=0; i<3; i++)); do rm $i; done",
        "(ls",
        "ls)",
        "echo >",
        "coproc rm x",
    ],
)
def test_unsupported_syntax_raises(source: str) -> None:
    with pytest.raises(ShellParseError):
        parse(source)


def test_case_branches_are_all_commands_and_patterns_are_data() -> None:
    script = parse('case "$(uname)" in Linux|*BSD) rm a;; (Darwin) rm b;& *) rm c;;& esac; ls')
    assert [c.text() for c in script.commands] == ["uname", "rm a", "rm b", "rm c", "ls"]


def test_a_function_call_stands_for_its_body_with_its_arguments() -> None:
    script = parse('f() { wc -l "$1"; rm "$2"; }; f a.txt b.txt; function g { ls; }; g; f x')
    assert [c.text() for c in script.commands] == [
        "wc -l a.txt",
        "rm b.txt",
        "ls",
        "wc -l x",
        "rm ",
    ]


def test_a_function_never_stands_for_a_program_it_does_not_shadow() -> None:
    script = parse('rm() { echo hi; }; rm -rf x; timeout 5 rm y; bash -c "rm z"; command rm w')
    assert [c.text() for c in script.commands if c.argv] == [
        "echo hi",
        "rm y",
        "rm z",
        "rm w",
    ]


def test_a_body_that_shifts_keeps_its_arguments_unknown() -> None:
    (shift, cat) = parse('f() { shift; cat "$1"; }; f a.txt /etc/shadow').commands
    assert not cat.argv[1].static


def test_arithmetic_records_the_names_it_reads() -> None:
    script = parse("n=0; echo $((n + $m * ${k})) $((16#ff)); [[ $j -lt 3 && i -gt 1 ]]")
    assert script.arith_names == {"n", "m", "k", "j", "i"}
    assert parse("[[ $(wc -l < a) -eq 3 ]]").arith_names == frozenset()


def test_redirections() -> None:
    (cmd,) = parse("cmd 2>&1 >out.txt >>log 2>/dev/null <in &>both <<<here 3<&0 >&-").commands
    got = [(r.op, r.fd, r.target.value if r.target else None, r.kind) for r in cmd.redirects]
    assert got == [
        (">&", 2, "1", "dup"),
        (">", None, "out.txt", "write"),
        (">>", None, "log", "write"),
        (">", 2, "/dev/null", "write"),
        ("<", None, "in", "read"),
        ("&>", None, "both", "write"),
        ("<<<", None, "here", "data"),
        ("<&", 3, "0", "dup"),
        (">&", None, "-", "dup"),
    ]
    (cmd,) = parse("echo x >&file").commands
    assert cmd.redirects[0].kind == "write"


def test_words_know_what_is_dynamic() -> None:
    (cmd,) = parse("cat \"$HOME/x\" *.py {a,b} ~/y '*' plain").commands
    home, star, brace, tilde, quoted, plain = cmd.argv[1:]
    assert home.dynamic and not home.static
    assert star.glob and star.static
    assert brace.brace and not brace.static
    assert tilde.tilde
    assert quoted.value == "*" and not quoted.glob
    assert plain.static and not plain.glob


def test_loops_are_flagged() -> None:
    assert parse("while true; do cd x; done").loops
    assert parse("for a in b; do :; done").loops
    assert not parse("cd x && ls").loops


def test_split_words_for_rules() -> None:
    assert [w.value for w in split_words("npm run test") or []] == ["npm", "run", "test"]
    assert [w.value for w in split_words("git commit -m 'a b'") or []] == [
        "git",
        "commit",
        "-m",
        "a b",
    ]
    assert split_words("a && b") is None
    assert split_words("'open") is None


@pytest.mark.parametrize(
    ("source", "is_read_only"),
    [
        ("ls -la src", True),
        ("cat a b", True),
        ("grep -rn foo .", True),
        ("rg --pre evil foo", False),
        ("rg -tpy foo", True),
        ("find . -name '*.py'", True),
        ("find . -name x -delete", False),
        ("find . -exec rm {} ;", False),
        ("find . -name *.py", False),  # an unquoted glob could expand to -delete
        ("sort -o out in", False),
        ("sort -uo out in", False),
        ("sort --outp=x in", False),  # abbreviation of --output
        ("sort -k 1 in", True),
        ("uniq a b", False),
        ("uniq a", True),
        ("xxd -r x", False),
        ("tree -o out", False),
        ("file -C x", False),
        ("date +%s", True),
        ("date -s tomorrow", False),
        ("date 0101", False),
        ("hostname", True),
        ("hostname evil", False),
        ("printf -v x y", False),
        ("printf '%s' x", True),
        ("[ -v 'a[$(id)]' ]", False),
        ("echo $HOME", True),
        ("git status", True),
        ("git -C sub log --oneline", True),
        ("git diff --output=x", False),
        ("git -c core.pager=evil log", False),
        ("git branch", True),
        ("git branch -a -v", True),
        ("git branch new", False),
        ("git branch -D old", False),
        ("git branch --list 'feat*'", True),
        ("git tag", True),
        ("git tag v1", False),
        ("git tag -l 'v*'", True),
        ("git stash list", True),
        ("git stash", False),
        ("git commit -m x", False),
        ("git push", False),
        ("git remote -v", True),
        ("git remote add x y", False),
        ("git config --get user.name", True),
        ("git config user.name x", False),
        ("git grep -O foo", False),
        ("sed -n '10,20p' f", True),
        ("sed -n -e '1p;$p' f", True),
        ("sed -i 's/a/b/' f", False),
        ("sed 's/a/b/w out' f", False),
        ("sed -n '/x/p' f", True),
        ("export FOO=1", True),
        ("export PATH=/tmp", False),
        ("unset 'a[$(id)]'", False),
        ("declare -i x=1", False),
        ("rm x", False),
        ("./ls", False),
        ("python -c 'print(1)'", False),
        ("env", False),
    ],
)
def test_read_only_commands(source: str, is_read_only: bool) -> None:
    (cmd,) = parse(source).commands
    assert (read_only(cmd.argv) is not None) == is_read_only


def test_read_only_paths_skip_the_grep_pattern() -> None:
    (cmd,) = parse("grep -A 3 /api/v1 src").commands
    ro = read_only(cmd.argv)
    assert ro is not None
    assert [w.value for w in ro.paths] == [".", "3", "src"]
    (cmd,) = parse("grep -e /api/v1 src -f/etc/pat").commands
    ro = read_only(cmd.argv)
    assert ro is not None
    assert [w.value for w in ro.paths] == [".", "/api/v1", "/etc/pat", "src"]


_PIECES = st.sampled_from(
    [
        "ls",
        "rm",
        "x",
        "'a b'",
        '"q"',
        "$X",
        "$(ls)",
        "`pwd`",
        "&&",
        "||",
        ";",
        "|",
        "&",
        "(",
        ")",
        "{",
        "}",
        ">",
        ">>",
        "<",
        "2>&1",
        "<<<",
        "\n",
        "\\",
        "'",
        '"',
        "#",
        "=",
        "A=1",
        "${x}",
        "<(a)",
        "*",
        "[[",
        "]]",
        "if",
        "then",
        "fi",
        "for",
        "do",
        "done",
        "sh -c",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=12), st.booleans())
def test_parser_never_crashes(pieces: list[str], spaced: bool) -> None:
    source = (" " if spaced else "").join(pieces)
    try:
        script = parse(source)
    except ShellParseError:
        return
    for cmd in script.commands:
        assert isinstance(cmd.argv, tuple)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_parser_total_on_arbitrary_text(source: str) -> None:
    try:
        parse(source)
    except ShellParseError:
        pass
