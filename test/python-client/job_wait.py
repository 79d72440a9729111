"""Waits for jobs of the local platform to end, on an event rather than a clock.

The platform's REST API has no notice when a job ends (its clients poll). The test that runs a
script holds the server in-process and does get one (ServerHandle.jobEnded), so the script asks
it: one JSON line {"wait": [job ids]} on stdout, then it blocks reading one line from stdin, which
the test writes once every job has ended ({"ended": {job id: status}}). No sleep and no deadline
here: the bound is the test's timeout, which ends this process. See job-waits.ts.
"""
import json
import sys


def wait_for_jobs(ids):
    """Returns once each job in `ids` has ended: {job id: its final status, as the server saw it}."""
    print(json.dumps({"wait": list(ids)}), flush=True)
    line = sys.stdin.readline()
    if not line:
        raise SystemExit(f"FAILED: no answer to the wait for jobs {list(ids)} (the test closed stdin)")
    return json.loads(line)["ended"]
