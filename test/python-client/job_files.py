"""The job-file calls of the platform's own Python client (mat3ra-api-client, unmodified), as the
notebook get-file-from-job makes them: a silicon Total Energy job computed by matframe serve, its
files listed with JobEndpoints.list_files, pw_scf.out fetched by its signedUrl with a plain
urllib.request.urlopen (no headers), then a file put by get_presigned_urls and marked an output
with insert_output_files.

Run by python-client.test.ts with API_HOST and API_PORT in the environment; prints one JSON line
per step and exits non-zero on the first failure. It waits for the job's end through job_wait.py
(the test answers on stdin when the server says the job has ended).
"""
import json
import os
import urllib.request

from mat3ra.api_client import LoginEndpoint
from mat3ra.api_client.endpoints.bank_workflows import BankWorkflowEndpoints
from mat3ra.api_client.endpoints.jobs import JobEndpoints
from mat3ra.api_client.endpoints.materials import MaterialEndpoints
from mat3ra.api_client.endpoints.properties import PropertiesEndpoints

from job_wait import wait_for_jobs

HOST = os.environ["API_HOST"]
PORT = int(os.environ["API_PORT"])


def step(name, value):
    print(json.dumps({"step": name, "value": value}), flush=True)


def main():
    login = LoginEndpoint(HOST, PORT, "demo", "demo", secure=False).login()
    args = (HOST, PORT, login["X-Account-Id"], login["X-Auth-Token"])
    jobs = JobEndpoints(*args, secure=False)
    silicon = MaterialEndpoints(*args, secure=False).list({"external.id": "mp-149"})[0]
    workflow = next(
        w
        for w in BankWorkflowEndpoints(*args, secure=False).list({"name": "Total Energy"}, {"limit": 100})
        if w["subworkflows"][0]["application"]["name"] == "espresso"
    )
    job = jobs.create({"name": "Si files", "workflow": {"_id": workflow["_id"]}, "_material": {"_id": silicon["_id"]}})
    jobs.submit(job["_id"])
    wait_for_jobs([job["_id"]])
    step("status", jobs.get(job["_id"])["status"])
    files = jobs.list_files(job["_id"])
    step("keys", sorted(f["key"] for f in files))
    output = next(f for f in files if "pw_scf.out" in f["key"])
    text = urllib.request.urlopen(output["signedUrl"]).read().decode()
    energy_ry = float([line for line in text.split("\n") if line.startswith("!")][-1].split("=")[1].rstrip("Ry"))
    [prop] = PropertiesEndpoints(*args, secure=False).list({"source.info.jobId": job["_id"], "data.name": "total_energy"})
    step("energy", {"file_ry": energy_ry, "property_ev": prop["data"]["value"], "units": prop["data"]["units"]})
    [entry] = jobs.get_presigned_urls(job["_id"], ["notes.txt"])
    put = urllib.request.Request(entry["URL"], data=b"computed on a laptop\n", method="PUT")
    step("upload", {"file": entry["file"], "status": urllib.request.urlopen(put).status})
    jobs.insert_output_files(job["_id"], json.dumps({"files": ["notes.txt"]}))
    step("files", sorted((f["key"], f["kind"]) for f in jobs.list_files(job["_id"])))


if __name__ == "__main__":
    main()
