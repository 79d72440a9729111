"""A careful Python user over a slow link: one `requests.Session` shared by a thread pool of 3,
pages asked for three at a time by offset (the same query and projection as matframe sends), then
`pandas.json_normalize`. Run like python_pandas.py (BENCH_PARAMS in, one result line out).

A `requests.Session` is not documented as thread-safe; sharing one for GETs is the common
pattern, and its connection pool (urllib3, 10 connections) serves the three threads.
"""
import json
import os
import resource
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pandas
import requests

RESULT_PREFIX = "BENCH_RESULT "
THREADS = 3


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

    def page(skip):
        projection = {"fields": params["fields"], "sort": {"_id": 1}, "skip": skip, "limit": page_size}
        response = session.get(f"{base_url}/materials", params={"query": query, "projection": json.dumps(projection)}, headers=headers)
        response.raise_for_status()
        return response.json()["data"]

    records = []
    skip = 0
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        done = False
        while not done:
            pages = list(pool.map(page, [skip + n * page_size for n in range(THREADS)]))
            for data in pages:
                records.extend(data)
                if len(data) < page_size:
                    done = True
            skip += THREADS * page_size
    frame = pandas.json_normalize(records)
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    session.close()

    rows, columns = frame.shape
    expected = params.get("expected")
    if expected is not None and rows != expected:
        raise SystemExit(f"python threads: read {rows} records, expected {expected}")
    max_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = {"seconds": seconds, "cpuSeconds": cpu_seconds, "records": rows, "columns": columns, "maxRssKiB": max_rss}
    sys.stdout.write(RESULT_PREFIX + json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
