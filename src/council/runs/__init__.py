"""Runs on disk: the record directory of one run."""
