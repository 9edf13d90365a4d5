"""FunctionGemma (``functiongemma``): ``<start_function_call>call:NAME{key:<escape>v<escape>}<end_function_call>``."""

from ..corpus import Sample, Suite, call

E = "<escape>"


def fn(name: str, args: str) -> str:
    return f"<start_function_call>call:{name}{{{args}}}<end_function_call>"


SUITES = [
    Suite(
        "functiongemma",
        None,
        "functiongemma",
        (
            Sample(
                "plain answer",
                "I can only help with the tools provided.",
                content="I can only help with the tools provided.",
            ),
            Sample(
                "one call",
                fn("get_weather", f"location:{E}Tokyo, Japan{E},days:3,metric:true,hours:[6,12]"),
                calls=(call("get_weather", location="Tokyo, Japan", days=3, metric=True, hours=[6, 12]),),
            ),
            Sample(
                "content before the call",
                "Sure, turning it on." + fn("set_light", f"room:{E}kitchen{E},on:true"),
                content="Sure, turning it on.",
                calls=(call("set_light", room="kitchen", on=True),),
            ),
            Sample(
                "two calls",
                fn("set_light", f"room:{E}hall{E},on:false") + fn("set_timer", "minutes:10"),
                calls=(call("set_light", room="hall", on=False), call("set_timer", minutes=10)),
            ),
            Sample(
                "nested, unicode, escapes, null and floats",
                fn(
                    "send",
                    f'to:[{E}李雷{E},{E}ana@x.io{E}],msg:{E}Say "hi"\\n{{ok}}, done{E},'
                    f"meta:{{prio:-1,ratio:0.75,tag:null}}",
                ),
                calls=(
                    call(
                        "send",
                        to=["李雷", "ana@x.io"],
                        msg='Say "hi"\\n{ok}, done',
                        meta={"prio": -1, "ratio": 0.75, "tag": None},
                    ),
                ),
            ),
            Sample(
                "empty arguments", "<start_function_call>call:get_time{}<end_function_call>", calls=(call("get_time"),)
            ),
            Sample(
                "escaped key",
                fn("lookup", f"{E}user id{E}:42"),
                calls=(call("lookup", **{"user id": 42}),),
            ),
            Sample(
                "call cut inside a string is content",
                "<start_function_call>call:get_weather{location:<escape>Tok",
                content="<start_function_call>call:get_weather{location:<escape>Tok",
            ),
            Sample(
                "missing <end_function_call> at the end",
                f"<start_function_call>call:get_weather{{location:{E}Oslo{E}}}",
                calls=(call("get_weather", location="Oslo"),),
            ),
            Sample(
                "no call: prefix breaks",
                f"<start_function_call>get_weather{{location:{E}Oslo{E}}}<end_function_call>",
                content=f"<start_function_call>get_weather{{location:{E}Oslo{E}}}<end_function_call>",
            ),
            Sample(
                "bare words become strings",
                fn("set_mode", "mode:eco,level:high"),
                calls=(call("set_mode", mode="eco", level="high"),),
            ),
        ),
        source="google/functiongemma-270m-it chat template and model card",
    )
]
