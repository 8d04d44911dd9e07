"""The `toolkit` commands, one module per command or group (`toolkit el ...`, the ledger's `status`, `summary` and
`running`, the control switches): `main.py` registers them; the helpers they share stay in `toolkit/cli/`."""
