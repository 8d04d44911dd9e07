"""A datasource as an import or export reaches it: the interface it uses, the credential's password read from
where the definition says it is, the driver and the dialect (`endpoints.py`), and the table as a dataset of
OpenLineage's naming (`datasets.py`). Below the import and export actions, above storage and entities."""
