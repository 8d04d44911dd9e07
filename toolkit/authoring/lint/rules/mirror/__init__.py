"""Mirror rules."""
