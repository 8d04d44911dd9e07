"""`toolkit lint`: every Falcon submission check and more, over a whole config repo, offline.

Rules live one concern per module under `rules/<kind>/`, each with a stable code; `runner` finds and
runs them; `reporters` prints text, JSON or GitHub annotations. Never imports pyspark: it runs in
pre-commit.
"""
