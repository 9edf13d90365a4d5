"""Coverage-guided fuzz targets (atheris): ``python -m tests.fuzz TARGET [libFuzzer options]``."""
