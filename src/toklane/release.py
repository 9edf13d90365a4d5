"""toklane's release number, in a module of its own so that any layer can name it (cache keys, the
CLI, the service) without importing the package's façade. pyproject.toml carries the same number."""

__version__ = "0.1.0"
