"""The lint rules, one concern per module, grouped by entity kind: `cluster/` (CL), `feed/` (FD),
`process/` (PR), `datasource/` (DS), `mirror/` (MR) and `repo/` (RP, across entities). Codes are stable: add, never
renumber."""
