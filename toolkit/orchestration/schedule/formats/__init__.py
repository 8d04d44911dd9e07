"""The schedulers a plan renders for, one module each: `render(plan, invocation) -> {path: text}`, paths relative to
`--out`. Every file carries the mark of its cluster (files.cluster_mark) and nothing that changes between two runs
on the same repo (no generation time), so that regenerating is idempotent and `--check` is exact."""
