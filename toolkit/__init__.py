"""feed-toolkit: Apache Falcon's feed and process lifecycle ideas for Spark, without a server."""

__version__ = "0.1.0"
