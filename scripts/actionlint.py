#!/usr/bin/env python3
"""actionlint on every workflow this project runs or tells users to copy.

    scripts/actionlint.py [--actionlint PROGRAM]

Checks .github/workflows/*.yml, the steps of action.yml that use other
actions, and the ```yaml blocks of README.md and docs/*.md that are
workflows (they have a top-level `jobs:`). actionlint reads workflows only,
so action.yml's `uses:` steps are checked inside a workflow written for the
purpose; each problem is reported at the line of the file it comes from.
Exit 1 when anything is reported, 2 when actionlint could not run.

Needs PyYAML and an actionlint new enough to know which actions run on a
runtime GitHub has retired (.ci/packaging.sh installs both).
"""

import argparse
import json
import pathlib
import re
import subprocess
import sys
import tempfile

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]


def workflows():
    """(name, text, line map) of each workflow file: lines map to themselves.

    A line map takes a line of the text checked to (line, column shift) in
    the file named.
    """
    for path in sorted((ROOT / ".github" / "workflows").glob("*.y*ml")):
        yield path.relative_to(ROOT).as_posix(), path.read_text(), None


def action_steps(path):
    """action.yml's `uses:` steps in a workflow of their own.

    Inputs keep their names (actionlint checks them against each action's
    metadata) with a plain value, since the action's own contexts
    (`inputs`, `steps` of the composite) mean nothing in a workflow.
    """
    root = yaml.compose(path.read_text())
    lines = ["on: push", "jobs:", "  action:", "    runs-on: ubuntu-latest", "    steps:"]
    where = {}
    runs = mapping_get(root, "runs")
    for step in getattr(mapping_get(runs, "steps"), "value", []):
        uses = mapping_get(step, "uses")
        if uses is None:
            continue
        origin = uses.start_mark.line + 1
        # Each written line maps to (line, column shift) in action.yml.
        where[len(lines) + 1] = (origin, uses.start_mark.column - 14)
        lines.append(f"      - uses: {json.dumps(uses.value)}")
        inputs = mapping_get(step, "with")
        if inputs is not None and inputs.value:
            where[len(lines) + 1] = (origin, 0)
            lines.append("        with:")
            for key, _ in inputs.value:
                where[len(lines) + 1] = (key.start_mark.line + 1, key.start_mark.column - 10)
                lines.append(f"          {json.dumps(key.value)}: x")
    return "\n".join(lines) + "\n", where


def mapping_get(node, key):
    if not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if k.value == key:
            return v
    return None


def markdown_workflows(path):
    """(text, first line) of each ```yaml block of `path` that is a workflow."""
    block, start = None, 0
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if block is None:
            if re.match(r"^```ya?ml\s*$", line):
                block, start = [], number
        elif line.startswith("```"):
            text = "\n".join(block) + "\n"
            if re.search(r"^jobs:", text, re.M):
                yield text, start
            block = None
        else:
            block.append(line)


def targets():
    yield from workflows()
    action = ROOT / "action.yml"
    text, where = action_steps(action)
    yield "action.yml", text, where
    for md in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for text, start in markdown_workflows(md):
            lines = range(1, text.count("\n") + 2)
            yield md.relative_to(ROOT).as_posix(), text, {n: (start + n, 0) for n in lines}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--actionlint", default="actionlint", help="the actionlint program")
    args = parser.parse_args()
    version = subprocess.run(
        [args.actionlint, "-version"], capture_output=True, text=True, check=False
    )
    print(f"actionlint {version.stdout.splitlines()[0] if version.stdout else '?'}")
    problems = checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, text, where in targets():
            checked += 1
            file = pathlib.Path(tmp) / f"{checked}.yml"
            file.write_text(text)
            run = subprocess.run(
                [args.actionlint, "-no-color", "-format", "{{json .}}", str(file)],
                capture_output=True,
                text=True,
                check=False,
            )
            if run.returncode > 1:
                print(f"actionlint failed on {name}:\n{run.stderr}", file=sys.stderr)
                return 2
            for e in json.loads(run.stdout or "[]"):
                line, shift = (where or {}).get(e["line"], (e["line"], 0))
                print(f"{name}:{line}:{e['column'] + shift}: {e['message']} [{e['kind']}]")
                problems += 1
    print(f"actionlint: {checked} workflows, {problems} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
