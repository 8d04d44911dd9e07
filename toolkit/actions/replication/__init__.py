"""Replication of feeds between clusters: plan, copy, verify, publish (files and tables); Hive export and import."""
