"""Process rules."""
