"""The tools that check and write a config repo before anything runs: the linter (`lint/`, the pre-commit hook and
CI step) and the converter of Falcon's XML definitions (`convert/`). No Spark."""
