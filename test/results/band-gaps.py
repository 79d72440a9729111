"""The band gaps of some job units as the platform's own Python client reads them, one request per
value (its `properties.get_indirect_band_gap(job_id, unit_id)`), for results.test.ts to compare
with matframe's results frame.

Reads [[job_id, unit_id], ...] as JSON on stdin, with API_HOST and API_PORT in the environment;
prints {"job_id unit_id": {"indirect": value, "direct": value or null}} as JSON.
"""
import json
import os
import sys

from mat3ra.api_client import LoginEndpoint
from mat3ra.api_client.endpoints.properties import PropertiesEndpoints

HOST = os.environ["API_HOST"]
PORT = int(os.environ["API_PORT"])


def main():
    login = LoginEndpoint(HOST, PORT, "demo", "demo", secure=False).login()
    properties = PropertiesEndpoints(HOST, PORT, login["X-Account-Id"], login["X-Auth-Token"], secure=False)
    gaps = {}
    for job_id, unit_id in json.load(sys.stdin):
        try:
            direct = properties.get_direct_band_gap(job_id, unit_id)
        except TypeError:
            # The client subscripts None when a property has no value of that type.
            direct = None
        gaps[f"{job_id} {unit_id}"] = {"indirect": properties.get_indirect_band_gap(job_id, unit_id), "direct": direct}
    print(json.dumps(gaps))


if __name__ == "__main__":
    main()
