"""The job-wait handshake alone, without the platform's client: submits the job named by JOB_ID
(or waits for it only, with WAIT_ONLY=1) through plain HTTP, waits through job_wait.py, then reads
the job's status. Run by job-waits.test.ts with API_PORT, ACCOUNT_ID and AUTH_TOKEN; prints one
JSON line per step.
"""
import json
import os
import urllib.request

from job_wait import wait_for_jobs

BASE = f"http://127.0.0.1:{os.environ['API_PORT']}/api/2018-10-01"
HEADERS = {"X-Account-Id": os.environ["ACCOUNT_ID"], "X-Auth-Token": os.environ["AUTH_TOKEN"]}
JOB_ID = os.environ["JOB_ID"]


def api(method, path):
    request = urllib.request.Request(BASE + path, method=method, headers=HEADERS)
    return json.loads(urllib.request.urlopen(request).read())["data"]


def step(name, value):
    print(json.dumps({"step": name, "value": value}), flush=True)


if os.environ.get("WAIT_ONLY") != "1":
    step("submitted", api("POST", f"/jobs/{JOB_ID}/submit")["status"])
step("ended", wait_for_jobs([JOB_ID]))
step("read", api("GET", f"/jobs/{JOB_ID}")["status"])
