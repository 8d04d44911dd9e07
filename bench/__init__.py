"""The benchmarks (`make bench`, bench/run.py): each a script that compares the toolkit with a baseline in the same
run; a package so that one benchmark reuses another's set-up (`from bench.ledger_scale_bench import ...`) and mypy
checks them with the toolkit, whose records they write."""
