"""The compiled modules, all optional, so an install without a C compiler still works (same
results, slower): toklane._gather (ids to bytes; else toklane.gather's numpy fallback),
toklane._bpe (the DeepSeek-V4 and Qwen3.5/3.6 encoders, and the quicktok engines' scan of the
characters to check; else tiktoken and quicktok, and numpy) and
toklane._trie (every marker in a whole text; else streammatch's find/match scan) and
toklane._json (where a JSON value ends, checked without building it; else json's C decoder;
and the tools_schema walk's fast accept, else the walk)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("toklane._gather", ["src/toklane/_gather.c"], depends=["src/toklane/_ids.h"], optional=True),
        Extension("toklane._bpe", ["src/toklane/_bpe.c"], depends=["src/toklane/_ids.h"], optional=True),
        Extension("toklane._trie", ["src/toklane/_trie.c"], optional=True),
        Extension("toklane._json", ["src/toklane/_json.c"], depends=["src/toklane/_json_kind.h"], optional=True),
    ]
)
