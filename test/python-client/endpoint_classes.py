"""Each endpoint class of the platform's own Python client (mat3ra-api-client, unmodified) lists
and reads the local platform's collections beyond materials, and writes where users may.

Run by python-client.test.ts with API_HOST and API_PORT in the environment; prints one JSON line
per step and exits non-zero on the first failure. It waits for its job's end through job_wait.py
(the test answers on stdin when the server says the job has ended).
"""
import json
import os

from mat3ra.api_client import LoginEndpoint
from mat3ra.api_client.endpoints.bank_materials import BankMaterialEndpoints
from mat3ra.api_client.endpoints.bank_workflows import BankWorkflowEndpoints
from mat3ra.api_client.endpoints.jobs import JobEndpoints
from mat3ra.api_client.endpoints.materials import MaterialEndpoints
from mat3ra.api_client.endpoints.metaproperties import MetaPropertiesEndpoints
from mat3ra.api_client.endpoints.projects import ProjectEndpoints
from mat3ra.api_client.endpoints.properties import PropertiesEndpoints
from mat3ra.api_client.endpoints.workflows import WorkflowEndpoints

from job_wait import wait_for_jobs

HOST = os.environ["API_HOST"]
PORT = int(os.environ["API_PORT"])


def step(name, value):
    print(json.dumps({"step": name, "value": value}), flush=True)


def check(condition, message):
    if not condition:
        raise SystemExit(f"FAILED: {message}")


def main():
    login = LoginEndpoint(HOST, PORT, "demo", "demo", secure=False).login()
    args = (HOST, PORT, login["X-Account-Id"], login["X-Auth-Token"])
    kwargs = {"secure": False}
    workflows, bank_workflows = WorkflowEndpoints(*args, **kwargs), BankWorkflowEndpoints(*args, **kwargs)
    jobs, projects = JobEndpoints(*args, **kwargs), ProjectEndpoints(*args, **kwargs)
    properties, metaproperties = PropertiesEndpoints(*args, **kwargs), MetaPropertiesEndpoints(*args, **kwargs)
    materials, bank_materials = MaterialEndpoints(*args, **kwargs), BankMaterialEndpoints(*args, **kwargs)

    bank = bank_workflows.list({"name": "Band Gap"}, {"limit": 50})
    vasp = [w for w in bank if w["subworkflows"][0]["application"]["name"] == "vasp"][0]
    check(bank_workflows.get(vasp["_id"])["name"] == "Band Gap", "bank_workflows.get")
    mine = bank_workflows.copy(vasp["_id"], login["X-Account-Id"])
    check(workflows.get(mine["_id"])["owner"]["_id"] == login["X-Account-Id"], "bank_workflows.copy")
    workflows.set_default(mine["_id"])
    step("workflows", {"bank": len(bank), "listed": len(workflows.list({}, {"limit": 500})), "default": workflows.get(mine["_id"])["isDefault"]})

    default = projects.list({"isDefault": True})
    check(len(default) == 1 and projects.get(default[0]["_id"])["name"] == "Default", f"projects: {default}")
    step("projects", len(projects.list()))

    mos2 = materials.list({"external.id": "mp-2815"})[0]
    config = jobs.build_config([mos2["_id"]], mine["_id"], default[0]["_id"], login["X-Account-Id"], "MoS2 band gap",
                               jobs.build_compute_config("master-1", ppn=2))
    job = jobs.create(config)
    check(job["compute"]["ppn"] == 2 and job["compute"]["cluster"] == {"fqdn": "master-1"}, f"compute kept: {job['compute']}")
    jobs.submit(job["_id"])
    wait_for_jobs([job["_id"]])
    # Read through the client, as a user would once told the job has ended.
    status = jobs.get(job["_id"])["status"]
    check(status == "finished", f"job ended {status}, not finished")
    unit = [u for u in job["workflow"]["subworkflows"][0]["units"] if u["name"] == "vasp_nscf"][0]
    gap = properties.get_indirect_band_gap(job["_id"], unit["flowchartId"])
    step("jobs", {"status": jobs.get(job["_id"])["status"], "indirect": gap,
                  "for_job": properties.list_for_job(job["_id"]), "files": jobs.list_files(job["_id"])})

    reference = properties.list({"data.name": "band_gaps"}, {"limit": 500, "skip": 500})
    # The metaproperties are the pseudopotentials the local platform computes with (Debian's
    # quantum-espresso-data): how many, and what kind, as the client lists them.
    metas = metaproperties.list()
    step("properties", {"page": len(reference),
                        "metaproperties": {"count": len(metas), "names": sorted({m["data"]["name"] for m in metas})}})

    public = bank_materials.list({"tags": "matminer:dielectric_constant"}, {"limit": 5})
    copied = bank_materials.copy(public[0]["_id"])
    check(materials.get(copied["_id"])["formula"] == public[0]["formula"], "bank_materials.copy")
    the_set = materials.create_set({"name": "python set"})
    materials.move_to_set(copied["_id"], "", the_set["_id"])
    materials.set_default(copied["_id"])
    got = materials.get(copied["_id"])
    step("materials", {"inSet": [s["_id"] == the_set["_id"] for s in got["inSet"]], "isDefault": got["isDefault"]})
    print("OK")


if __name__ == "__main__":
    main()
