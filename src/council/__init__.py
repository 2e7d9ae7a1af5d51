"""council: a structured debate between AI coding CLIs that ends in a decision."""

__version__ = "0.1.0"
