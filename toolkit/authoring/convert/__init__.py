"""`toolkit convert-falcon`: Falcon cluster, feed, process and datasource XML definitions into YAML entities.

Modules, each with one job: `xml_input` (bytes -> element tree, refusing DOCTYPEs, errors with file and line),
`tracking` (what each converter read, so whatever it did not read is reported, never dropped silently),
`values` (the shapes Falcon shares between kinds: tags, properties, comma lists, attribute groups),
`cluster`, `feed`, `process` and `datasource` (one kind each), `falcon_xml` (one file -> a `Conversion`),
`yaml_writer` (data -> readable YAML) and `repo_writer` (files in the repo layout, written atomically).
Imports no Spark.
"""
