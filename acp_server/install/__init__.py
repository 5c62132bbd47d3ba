"""Getting Heron into editors: ``heron setup``, ``heron doctor`` and ``heron login``."""
