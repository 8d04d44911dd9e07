"""Datasource rules."""
