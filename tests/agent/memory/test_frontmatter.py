"""The lenient front matter reader shared by rules, commands, skills and output styles."""

from __future__ import annotations

from agent.memory.frontmatter import parse_front_matter


def test_keys_lists_booleans_and_the_body() -> None:
    fm = parse_front_matter(
        '---\ndescription: "Fix it"\nallowed-tools: [Read, "Bash(git *)"]\n'
        "paths: src/**/*.{ts,tsx}, lib/*.py\nkeep-coding-instructions: false\n"
        "globs:\n  - a/*.md\n  - 'b/*.md'\n# a comment\n---\nBody $ARGUMENTS\n",
        "x.md",
    )
    assert fm.problems == []
    assert fm.text("description") == "Fix it"
    assert fm.items("allowed-tools") == ["Read", "Bash(git *)"]
    assert fm.items("paths") == ["src/**/*.{ts,tsx}", "lib/*.py"]
    assert fm.fields["keep-coding-instructions"] is False
    assert fm.items("globs") == ["a/*.md", "b/*.md"]
    assert fm.body == "Body $ARGUMENTS\n"
    assert fm.body_line == 11


def test_no_front_matter_is_all_body() -> None:
    fm = parse_front_matter("# Title\ntext\n", "x.md")
    assert fm.fields == {} and fm.body == "# Title\ntext\n" and fm.problems == []


def test_malformed_front_matter_is_reported_with_file_and_line() -> None:
    unclosed = parse_front_matter("---\ndescription: x\nbody\n", "u.md")
    assert unclosed.problems == ["u.md:1: the front matter has no closing '---'; ignored."]
    assert unclosed.fields == {}
    bad = parse_front_matter("---\njust words\n- stray\ndescription: ok\n---\nB\n", "b.md")
    assert bad.problems == [
        "b.md:2: expected 'key: value'; ignored.",
        "b.md:3: a list item outside a list; ignored.",
    ]
    assert bad.text("description") == "ok"
