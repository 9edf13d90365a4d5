"""Conformance suites, one module per format (``SUITES``: a list of :class:`tests.conformance.corpus.Suite`)."""
