"""Print the OpenLineage events a run wrote with the client's file transport, one short paragraph each: the event,
its job and run, the datasets read and written (with how many instances, where the event lists them: START names
the input datasets, the run's end lists their instances), and the column lineage of the outputs.

    python show_openlineage.py demo-output/openlineage.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(path: str) -> int:
    for line in Path(path).read_text().splitlines():
        event = json.loads(line)
        run = event["run"]["facets"].get("feedToolkit_run", {})
        job = f"{event['job']['namespace']}/{event['job']['name']}"
        print(f"{event['eventType']:8} job {job}  run {event['run']['runId']}"
              f"  (toolkit run {run.get('runId')}, attempt {run.get('attempt')}, instance {run.get('instance')})")
        for kind, facet_key in (("read ", "inputFacets"), ("wrote", "outputFacets")):
            for dataset in event["inputs" if kind == "read " else "outputs"]:
                subset = dataset.get(facet_key, {}).get("subset", {})
                condition = subset.get("inputCondition") or subset.get("outputCondition") or {}
                count = len(condition.get("locations") or condition.get("partitions") or [])
                stats = dataset.get(facet_key, {}).get("outputStatistics")
                print(f"         {kind} {dataset['namespace']} {dataset['name']}"
                      + (f": {count} instance(s)" if condition else "")
                      + (f", {stats.get('fileCount')} file(s), {stats.get('size')} bytes" if stats else ""))
                columns = dataset.get("facets", {}).get("columnLineage", {}).get("fields", {})
                for column, lineage in columns.items():
                    sources = ", ".join(f"{field['field']}" for field in lineage["inputFields"])
                    print(f"                 column {column} <- {sources}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
