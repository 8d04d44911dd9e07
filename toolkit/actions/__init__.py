"""The nine actions an entrypoint runs (`entrypoints/<name>.py` calls one `main()` here): each package holds one
action's plan, apply and record steps and goes through the one lifecycle of `toolkit/services/runtime/lifecycle.py`.
No action imports another (an import-linter contract): what two share lives in `services/`, `planners/` or `core/`."""
