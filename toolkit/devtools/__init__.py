"""Tools for trying the toolkit on one machine (the demo, tests, benchmarks); actions never import them."""
