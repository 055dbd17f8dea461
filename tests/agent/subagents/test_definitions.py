"""Agent definitions: where they are found, which one wins, and bad files reported."""

from __future__ import annotations

from pathlib import Path

from agent.subagents.definitions import agents_listing, load_agents, parse_definition


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def agent_file(name: str, description: str = "does things", body: str = "Be brief.", **keys):
    extra = "".join(f"{k}: {v}\n" for k, v in keys.items())
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}\n"


def test_the_built_ins_are_always_there_explore_and_plan_read_only(tmp_path: Path) -> None:
    catalog = load_agents(tmp_path, home=tmp_path / "home", config=tmp_path / "cfg")
    assert list(catalog.agents) == ["general-purpose", "Explore", "Plan"]
    assert catalog.agents["general-purpose"].tools is None
    for name in ("Explore", "Plan"):
        d = catalog.agents[name]
        assert d.permission_mode == "plan" and not d.allows("Write") and d.allows("Read")
    assert "plan" in catalog.agents["Plan"].prompt and not catalog.problems


def test_front_matter_keys_are_read_and_the_body_is_the_prompt(tmp_path: Path) -> None:
    text = agent_file(
        "reviewer",
        "Reviews diffs",
        "You review code.\n\nBe strict.",
        tools="Read, Grep, Bash(git diff *)",
        disallowedTools="[Bash]",
        model="haiku",
        permissionMode="acceptEdits",
        maxTurns=7,
    )
    d = parse_definition(tmp_path / "r.md", text, "project")
    assert d.tools == ("Read", "Grep", "Bash") and d.disallowed == ("Bash",)
    assert not d.allows("Bash") and d.allows("Grep") and not d.allows("Write")
    assert d.model == "claude-haiku-5-5" and d.permission_mode == "acceptEdits"
    assert d.max_turns == 7 and d.prompt == "You review code.\n\nBe strict."
    inherit = parse_definition(tmp_path / "i.md", agent_file("i", model="inherit"), "user")
    other = parse_definition(tmp_path / "o.md", agent_file("o", model="claude-opus-5"), "user")
    assert inherit.model is None and other.model == "claude-opus-5"


def test_the_closest_project_folder_wins_then_user_folders_then_built_ins(tmp_path: Path) -> None:
    home, cfg = tmp_path / "home", tmp_path / "cfg"
    project = tmp_path / "repo"
    ws = project / "pkg"
    write(cfg / "agents" / "a.md", agent_file("shared", "from eddy config"))
    write(cfg / "agents" / "Explore.md", agent_file("Explore", "my explorer"))
    write(home / ".claude" / "agents" / "x" / "b.md", agent_file("shared", "from ~/.claude"))
    write(home / ".claude" / "agents" / "u.md", agent_file("user-only", "user"))
    write(project / ".claude" / "agents" / "c.md", agent_file("shared", "from repo .claude"))
    write(project / ".claude" / "agents" / "d.md", agent_file("outer", "outer only"))
    write(ws / ".claude" / "agents" / "deep" / "e.md", agent_file("shared", "from pkg .claude"))
    write(ws / ".eddy" / "agents" / "f.md", agent_file("mine", "from pkg .eddy"))
    catalog = load_agents(ws, home=home, config=cfg)
    agents = catalog.agents
    assert agents["shared"].description == "from pkg .claude"
    assert agents["shared"].source == "project"
    assert agents["outer"].source == "project" and agents["mine"].source == "project"
    assert agents["user-only"].source == "user (~/.claude)"
    assert agents["Explore"].description == "my explorer" and agents["Explore"].source == "user"
    assert not catalog.problems
    listing = agents_listing(catalog)
    assert "shared" in listing and str(ws / ".claude" / "agents" / "deep" / "e.md") in listing


def test_bad_files_are_reported_with_where_and_why_not_skipped(tmp_path: Path) -> None:
    folder = tmp_path / ".claude" / "agents"
    bad = {
        "nofm.md": "just text\n",
        "yaml.md": "---\nname: [unclosed\n---\nbody\n",
        "noname.md": "---\ndescription: x\n---\nbody\n",
        "mode.md": agent_file("m", permissionMode="yolo"),
        "turns.md": agent_file("t", maxTurns=0),
        "key.md": agent_file("k", colour="red"),
        "empty.md": agent_file("e", body=""),
        "tools.md": agent_file("tl", tools="{a: 1}"),
    }
    for name, text in bad.items():
        write(folder / name, text)
    write(folder / "good.md", agent_file("good"))
    catalog = load_agents(tmp_path, home=tmp_path / "home", config=tmp_path / "cfg")
    assert "good" in catalog.agents
    problems = "\n".join(catalog.problems)
    assert len(catalog.problems) == len(bad)
    for name in bad:
        assert str(folder / name) in problems
    assert "no YAML front matter" in problems and "bad YAML" in problems
    assert "'name' is missing" in problems and "permissionMode" in problems
    assert "maxTurns" in problems and "unknown key(s) colour" in problems
    assert "body" in problems and "tools must be" in problems
    assert "Not loaded:" in agents_listing(catalog)
