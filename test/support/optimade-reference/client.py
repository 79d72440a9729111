"""The reference OptimadeClient (optimade-python-tools): the structures a filter matches at one
base URL, printed as JSON lines `{"id": ..., "attributes": {...}}` in the order received.

Usage: python client.py BASE_URL FILTER FIELD[,FIELD...]
"""

import json
import sys

from optimade.client import OptimadeClient

base_url, filter_, fields = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
client = OptimadeClient(base_urls=[base_url], silent=True, use_async=False, max_results_per_provider=-1)
results = client.get(filter=filter_ or None, response_fields=fields)
for url, answer in results["structures"][filter_ or ""].items():
    if answer["errors"]:
        print(json.dumps({"errors": answer["errors"]}))
    for entry in answer["data"]:
        print(json.dumps({"id": entry["id"], "attributes": entry.get("attributes", {})}))
