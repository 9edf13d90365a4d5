"""Poolside Laguna (``poolside_v1``): GLM-4.5's call layout as text, ``<think>`` opt-in and written by the model."""

from ..corpus import Sample, Suite, call


def kv(name: str, *pairs: tuple[str, str]) -> str:
    """A call in the GLM-4.5 newline layout the Laguna template writes."""
    body = "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n" for k, v in pairs)
    return f"<tool_call>{name}\n{body}</tool_call>"


SCHEMA = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "start": {"type": "integer"},
                    "follow": {"type": "boolean"},
                },
            },
        },
    }
]

SUITES = [
    Suite(
        "poolside-test",
        "poolside_v1",
        "poolside_v1",
        (
            Sample(
                "plain answer",
                "Use `git rebase -i HEAD~3` to squash the last three commits.",
                content="Use `git rebase -i HEAD~3` to squash the last three commits.",
            ),
            Sample(
                "reasoning then answer",
                "<think>They want to undo the last commit but keep changes.</think>\nRun `git reset --soft HEAD~1`.",
                reasoning="They want to undo the last commit but keep changes.",
                content="Run `git reset --soft HEAD~1`.",
            ),
            Sample(
                "reasoning then typed call",
                "<think>Read the file first.</think>\n"
                + kv("read_file", ("path", "src/main.py"), ("start", "10"), ("follow", "true")),
                reasoning="Read the file first.",
                calls=(call("read_file", path="src/main.py", start=10, follow=True),),
                options={"tools_schema": SCHEMA},
            ),
            Sample(
                "content before the call",
                "Let me look at the tests.\n" + kv("run", ("cmd", "pytest -q tests/")),
                content="Let me look at the tests.",
                calls=(call("run", cmd="pytest -q tests/"),),
            ),
            Sample(
                "two calls",
                kv("read_file", ("path", "a.py")) + "\n" + kv("read_file", ("path", "b.py")),
                calls=(call("read_file", path="a.py"), call("read_file", path="b.py")),
            ),
            Sample(
                "nested, unicode and escapes",
                kv(
                    "edit",
                    ("path", "docs/ü.md"),
                    ("new", 'print("tab\\there")\n# 完了'),
                    ("ranges", '[[1, 2], {"from": 3, "to": null}]'),
                ),
                calls=(
                    call(
                        "edit",
                        path="docs/ü.md",
                        new='print("tab\\there")\n# 完了',
                        ranges=[[1, 2], {"from": 3, "to": None}],
                    ),
                ),
            ),
            Sample("empty arguments", "<tool_call>list_files\n</tool_call>", calls=(call("list_files"),)),
            Sample(
                "reasoning cut off",
                "<think>The failing test imports a module that",
                reasoning="The failing test imports a module that",
            ),
            Sample(
                "call cut inside a value",
                "<tool_call>run\n<arg_key>cmd</arg_key>\n<arg_value>cargo te",
                content="<tool_call>run\n<arg_key>cmd</arg_key>\n<arg_value>cargo te",
            ),
            Sample(
                "key without a value is dropped",
                "<tool_call>run\n<arg_key>cmd</arg_key>\n<arg_value>ls</arg_value>\n<arg_key>cwd</arg_key>\n"
                "</tool_call>",
                calls=(call("run", cmd="ls"),),
            ),
            Sample(
                "stray </tool_call> in prose is text",
                "The tag </tool_call> closes a call.",
                content="The tag </tool_call> closes a call.",
            ),
        ),
        source="poolside Laguna chat template (GLM-4.5 layout, enable_thinking opt-in)",
    )
]
