"""The `toolkit` command (typer): one module per group of verbs, `main` wires them and maps errors."""
