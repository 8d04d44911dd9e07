"""Feed rules."""
