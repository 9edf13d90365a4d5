"""Kimi-VL Thinking / Kimi 1.5 (``kimi_vl`` reasoning): ``◁think▷...◁/think▷`` written by the model, as text."""

from ..corpus import Sample, Suite

SUITES = [
    Suite(
        "kimi-k2-test",
        "kimi_vl",
        None,
        (
            Sample(
                "reasoning then answer",
                "◁think▷The image shows a red bicycle leaning on a wall.◁/think▷A red bicycle.",
                reasoning="The image shows a red bicycle leaning on a wall.",
                content="A red bicycle.",
            ),
            Sample(
                "newlines around the markers",
                "◁think▷\nCount the apples: 3 on the left, 2 on the right.\n◁/think▷\n\nThere are 5 apples.",
                reasoning="Count the apples: 3 on the left, 2 on the right.",
                content="There are 5 apples.",
            ),
            Sample(
                "no reasoning: plain answer",
                "This is a photo of Mount Fuji.",
                content="This is a photo of Mount Fuji.",
            ),
            Sample(
                "cut off inside reasoning",
                "◁think▷The chart has four bars; the tallest is",
                reasoning="The chart has four bars; the tallest is",
            ),
            Sample(
                "unicode reasoning and answer",
                "◁think▷图片里有一只猫。◁/think▷一只猫坐在垫子上。",
                reasoning="图片里有一只猫。",
                content="一只猫坐在垫子上。",
            ),
            Sample(
                "multi-paragraph reasoning, markdown answer",
                "◁think▷Step 1: read the table.\n\nStep 2: sum the column.◁/think▷**Total: 42**\n\n- a: 20\n- b: 22",
                reasoning="Step 1: read the table.\n\nStep 2: sum the column.",
                content="**Total: 42**\n\n- a: 20\n- b: 22",
            ),
            Sample(
                "empty reasoning",
                "◁think▷◁/think▷Yes.",
                content="Yes.",
            ),
            Sample(
                "math in reasoning",
                "◁think▷Area = πr² = π·2² ≈ 12.57◁/think▷About 12.57 cm².",
                reasoning="Area = πr² = π·2² ≈ 12.57",
                content="About 12.57 cm².",
            ),
            Sample(
                "the answer mentions <think> tags as prose",
                "◁think▷Explain tags.◁/think▷Models may write <think> to mark reasoning.",
                reasoning="Explain tags.",
                content="Models may write <think> to mark reasoning.",
            ),
            Sample(
                "closer without opener: text before it is content",
                "Looking closely.◁/think▷A dog.",
                content="Looking closely.◁/think▷A dog.",
            ),
        ),
        source="Kimi-VL-A3B-Thinking model card and chat template (◁think▷ written by the model)",
    )
]
