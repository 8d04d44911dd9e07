"""Repo rules."""
