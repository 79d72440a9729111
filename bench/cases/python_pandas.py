"""The way the platform's own examples read a collection today: `requests`, page by page with the
same query and projection as matframe sends, then `pandas.json_normalize` into a DataFrame.

Run by bench/run.js with Debian's /usr/bin/python3 (python3-requests, python3-pandas); the
parameters arrive as JSON in BENCH_PARAMS and one result line goes to stdout. The modules are
imported before timing, as in a notebook.
"""
import json
import os
import resource
import sys
import time

import pandas
import requests

RESULT_PREFIX = "BENCH_RESULT "


def main():
    params = json.loads(os.environ["BENCH_PARAMS"])
    base_url = params["baseUrl"]
    credentials = params["credentials"]
    page_size = params.get("pageSize", 500)
    query = json.dumps(params.get("query", {}))
    headers = {"X-Account-Id": credentials["accountId"], "X-Auth-Token": credentials["authToken"]}

    start = time.perf_counter()
    cpu_start = time.process_time()
    session = requests.Session()
    records = []
    skip = 0
    while True:
        projection = {"fields": params["fields"], "sort": {"_id": 1}, "skip": skip, "limit": page_size}
        response = session.get(
            f"{base_url}/materials",
            params={"query": query, "projection": json.dumps(projection)},
            headers=headers,
        )
        response.raise_for_status()
        page = response.json()["data"]
        records.extend(page)
        if len(page) < page_size:
            break
        skip += page_size
    frame = pandas.json_normalize(records)
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    session.close()

    rows, columns = frame.shape
    expected = params.get("expected")
    if expected is not None and rows != expected:
        raise SystemExit(f"python: read {rows} records, expected {expected}")
    # Linux reports ru_maxrss in KiB, like Node's process.resourceUsage().maxRSS.
    max_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = {"seconds": seconds, "cpuSeconds": cpu_seconds, "records": rows, "columns": columns, "maxRssKiB": max_rss,
              "python": sys.version.split()[0], "pandas": pandas.__version__, "requests": requests.__version__}
    sys.stdout.write(RESULT_PREFIX + json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
