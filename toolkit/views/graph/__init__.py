"""`toolkit graph`: the config repo drawn as one graph (clusters, feeds, processes and the edges between them),
optionally with each entity's latest status from one cluster's ledger, written as a self-contained HTML page,
Graphviz dot or Mermaid. One immutable model (`model.py`) is built once and every renderer reads it."""
