"""Cluster rules."""
