"""The one compiled module (toklane._gather): optional, so an install without a C compiler still
works -- toklane.parsing.gather then runs its pure-Python fallback (same results, slower)."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("toklane._gather", ["src/toklane/_gather.c"], optional=True)])
