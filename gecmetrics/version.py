"""The package version, on its own so that signatures can quote it without importing
the package's top-level facade (which reaches up to the meta-evaluation)."""

__version__ = "0.1.0"
