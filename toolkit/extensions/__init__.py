"""The registries a team extends with one new module: workflow engines (`*_engine.py`), notification channels
(`*_channel.py`) and retention actions (`*_action.py`), found by `toolkit/plugins.py` (docs/extending.md)."""
