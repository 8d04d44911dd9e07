"""The schedulers a plan renders for, one module each: `render(plan, invocation, context) -> {path: text}`, paths
relative to `--out`. Every file carries files.GENERATED_MARK and nothing that changes between two runs on the
same repo (no generation time), so that regenerating is idempotent and `--check` is exact."""
