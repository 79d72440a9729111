"""The requests of the platform's example notebooks (Exabyte-io/api-examples, examples/), sent
with the platform's own Python client against `matframe serve`: each notebook's API calls, in its
order and with its arguments, without the cells that need packages the local pip index lacks
(mat3ra.notebooks_utils for sign-in and waiting, mat3ra.standata and mat3ra.made for bodies,
whose place the bank's records take).

Run by python-client.test.ts with API_HOST, API_PORT, API_SECURE, OIDC_ACCESS_TOKEN,
ACCOUNT_ID, AUTH_TOKEN and CLUSTERS in the environment; prints one JSON line per step and exits
non-zero on the first failure. Where a notebook waits for its jobs (mat3ra.notebooks_utils'
wait_for_jobs_to_finish_async, a poll), this waits through job_wait.py instead: the test answers
on stdin when the server says the jobs have ended.
"""
import json
import os

from mat3ra.api_client import APIClient

from job_wait import wait_for_jobs as ended

client = APIClient.authenticate()
selected_account = client.my_account
OWNER_ID = os.getenv("ORGANIZATION_ID") or selected_account.id


def step(name, value):
    print(json.dumps({"step": name, "value": value}), flush=True)


def check(condition, message):
    if not condition:
        raise SystemExit(f"FAILED: {message}")


def wait_for_jobs(ids):
    # What wait_for_jobs_to_finish_async waits for: none of the jobs queued, submitted or active. Told
    # by the test when they have ended, then read through the client as the notebook reads them.
    ended(ids)
    statuses = [client.jobs.get(id_)["status"] for id_ in ids]
    check(all(status not in ("pre-submission", "queued", "submitted", "active") for status in statuses),
          f"jobs {ids} said ended but read {statuses}")
    return statuses


# CLUSTERS as the notebooks read it (cluster_config = next(iter(json.loads(os.getenv("CLUSTERS"))), {}))
cluster_config = next(iter(json.loads(os.getenv("CLUSTERS"))), {})
queue_configs = cluster_config.get("queues", [])
CLUSTER_NAME = cluster_config.get("displayName", "cluster-001")
QUEUE_NAME = next(iter(queue_configs), {}).get("NAME", "D")
check(client.clusters.list() == json.loads(os.getenv("CLUSTERS")), "clusters.list() is not CLUSTERS")
step("clusters", [CLUSTER_NAME, QUEUE_NAME])

# get_authentication_params
accounts = client.list_accounts()
check(accounts and accounts[0]["_id"] == OWNER_ID, f"list_accounts: {accounts}")

# create_material (its CONFIG, verbatim), get_materials_by_formula, get_workflows
CONFIG = {
    "name": "TEST MATERIAL",
    "basis": {
        "elements": [{"id": 1, "value": "Si"}, {"id": 2, "value": "Si"}],
        "coordinates": [{"id": 1, "value": [0, 0, 0]}, {"id": 2, "value": [0.25, 0.25, 0.25]}],
        "units": "crystal",
        "name": "basis",
    },
    "lattice": {
        "type": "FCC",
        "a": 3.867,
        "b": 3.867,
        "c": 3.867,
        "alpha": 60,
        "beta": 60,
        "gamma": 60,
        "units": {"length": "angstrom", "angle": "degree"},
        "vectors": {
            "a": [3.867, 0, 0],
            "b": [1.9335000000000004, 3.348920236434424, 0],
            "c": [1.9335000000000004, 1.1163067454781415, 3.1573922784475164],
            "name": "lattice vectors",
            "alat": 1,
            "units": "angstrom",
        },
    },
    "tags": ["REST API"],
}
material = client.materials.create(CONFIG, OWNER_ID)
materials = client.materials.list({"formula": "Si", "owner._id": OWNER_ID})
workflows = client.workflows.list({"name": {"$regex": "Total Energy"}, "owner._id": OWNER_ID}, {"limit": 2})
step("materials-and-workflows", [material["formula"], len(materials), [w["systemName"] for w in workflows]])

# upload_materials_from_file_poscar (a POSCAR of the default silicon in place of the LFS file)
POSCAR = os.environ.get("MATFRAME_POSCAR")
if POSCAR:
    imported = client.materials.import_from_file("My Material", open(POSCAR).read(), owner_id=OWNER_ID)
    step("upload_poscar", imported["formula"])

# create_and_submit_job
default_material = client.materials.list({"isDefault": True, "owner._id": OWNER_ID})[0]
default_workflow = client.workflows.list({"isDefault": True, "owner._id": OWNER_ID})[0]
config = {
    "owner": {"_id": OWNER_ID},
    "_material": {"_id": default_material["_id"]},
    "workflow": {"_id": default_workflow["_id"]},
    "name": "TEST JOB",
}
job = client.jobs.create(config)
client.jobs.submit(job["_id"])
job = client.jobs.get(job["_id"])
# Submitted, or already finished: the local platform's jobs take milliseconds here.
step("create_and_submit_job", [default_material["formula"], default_workflow["systemName"], job["status"] in ("submitted", "finished")])

# get-file-from-job, up to the job's files (GET jobs/<id>/files answers [] until jobs keep files)
project_metadata = client.projects.list({"isDefault": True, "owner._id": OWNER_ID})[0]
project_id = project_metadata["_id"]
owner_id = project_metadata["owner"]["_id"]
WORKFLOW_QUERY = {"systemName": "espresso-total-energy", "limit": 1}
bank_workflow_id = client.bank_workflows.request(
    "GET", client.bank_workflows.name, params=WORKFLOW_QUERY, headers=client.bank_workflows.headers
)[0]["_id"]
workflow_id = client.bank_workflows.copy(bank_workflow_id, owner_id)["_id"]
bank_materials = client.bank_materials.list({"formula": "Si"})
material_id = client.bank_materials.copy(bank_materials[0]["_id"], owner_id)["_id"]
materials = client.materials.list({"owner._id": owner_id})
jobs = client.jobs.create_by_ids(
    materials=materials, workflow_id=workflow_id, project_id=project_id, owner_id=owner_id, prefix="Test_Job_Output"
)
client.jobs.submit(jobs[0]["_id"])
wait_for_jobs([jobs[0]["_id"]])
files = client.jobs.list_files(jobs[0]["_id"])
step("get-file-from-job", [len(materials), jobs[0]["workflow"]["systemName"], type(files).__name__])

# run-simulations-and-extract-properties, up to the properties (the local platform has no espresso results yet)
bank_workflow_id = client.bank_workflows.list({"systemName": "espresso-band-gap"})[0]["_id"]
workflow_id = client.bank_workflows.copy(bank_workflow_id, OWNER_ID)["_id"]
# standata's Si and Ge (diamond cells): the bank's silicon, and the same cell holding germanium.
[silicon] = client.bank_materials.list({"formula": "Si"}, {"limit": 1})
material_json_si = {key: silicon[key] for key in ("name", "lattice", "basis")}
material_json_ge = json.loads(json.dumps(material_json_si).replace('"Si"', '"Ge"'))
material_json_ge["name"] = "Ge"
created = []
for body in (material_json_si, material_json_ge):
    body["tags"] = ["tag1", "tag2"]
    created.append(client.materials.create(body, OWNER_ID)["_id"])
materials = [client.materials.list({"_id": id_})[0] for id_ in created]
materials_set = client.materials.create_set({"name": "materials-set", "owner": {"_id": OWNER_ID}})
for material in materials:
    client.materials.move_to_set(material["_id"], "", materials_set["_id"])
compute = client.jobs.build_compute_config(CLUSTER_NAME, 1, 1, QUEUE_NAME, "01:00:00")
jobs = client.jobs.create_by_ids(materials, workflow_id, project_id, "Job Name Prefix", OWNER_ID, compute)
jobs_set = client.jobs.create_set({"name": "jobs-set", "projectId": project_id, "owner": {"_id": OWNER_ID}})
for job in jobs:
    client.jobs.move_to_set(job["_id"], "", jobs_set["_id"])
for job in jobs:
    client.jobs.submit(job["_id"])
statuses = wait_for_jobs([job["_id"] for job in jobs])
in_set = client.jobs.list({"inSet._id": jobs_set["_id"]})
step("run-simulations", [len(jobs), len(in_set), statuses, jobs[0]["compute"]["cluster"]["fqdn"]])

# qe_scf_calculation: a workflow body from the bank's shell/hello_world (standata's body keeps its _id)
[shell] = client.bank_workflows.list({"systemName": "shell-shell-script"})
WORKFLOW_BODY = {key: value for key, value in shell.items() if key not in ("owner", "createdAt", "external", "tags")}
WORKFLOW_BODY["_id"] = shell["external"]["id"]
WORKFLOW_BODY["subworkflows"][0]["units"][0]["context"] = []
WORKFLOW_BODY["subworkflows"][0]["units"][0]["input"][0]["rendered"] = "#!/bin/bash\necho hello\n"
WORKFLOW_RESP = client.workflows.create(WORKFLOW_BODY, owner_id=OWNER_ID)
JOB_BODY = {
    "owner": {"_id": OWNER_ID},
    "name": "SCF Calculation",
    "compute": compute,
    "workflow": {"_id": WORKFLOW_RESP["_id"]},
    "_material": "null",
}
JOB_RESP = client.jobs.create(JOB_BODY)
client.jobs.submit(JOB_RESP["_id"])
step("qe_scf_calculation", [WORKFLOW_RESP["_id"] != WORKFLOW_BODY["_id"], JOB_RESP["_material"]["_id"] == default_material["_id"]])

# band_gaps_for_interface_bilayer_twisted_molybdenum_disulfide, its workflow and job edits
[mos2] = client.bank_materials.list({"formula": "MoS2"}, {"limit": 1})
saved_materials = [client.materials.create({key: mos2[key] for key in ("name", "lattice", "basis")}, OWNER_ID)]
OPTIONS = {"limit": 1}
band_gap_workflow_id = client.bank_workflows.copy(
    client.bank_workflows.list({"systemName": "espresso-band-gap"}, OPTIONS)[0]["_id"], OWNER_ID
)["_id"]
relaxation_workflow = client.bank_workflows.list({"systemName": "espresso-variable-cell-relaxation"}, OPTIONS)[0]
swf_0 = relaxation_workflow["subworkflows"][0]
QUERY = {"_id": band_gap_workflow_id, "owner._id": OWNER_ID}
workflow = client.workflows.list(QUERY, OPTIONS)[0]
swf_1 = workflow["subworkflows"][0]
model = {
    "type": "dft",
    "subtype": "lda",
    "method": {"type": "pseudopotential", "subtype": "us", "data": {}},
    "functional": {"slug": "pz"},
    "refiners": [],
    "modifiers": [],
}
swf_0["model"] = model
swf_1["model"] = model
client.workflows.update(id_=band_gap_workflow_id, modifier={"name": "Band Gap (LDA)"})
client.workflows.update(id_=band_gap_workflow_id, modifier={"subworkflows": [swf_0, swf_1]})
unit_0 = relaxation_workflow["units"][0]
unit_1 = workflow["units"][0]
unit_0["next"] = unit_1["flowchartId"]
unit_1["head"] = False
client.workflows.update(id_=band_gap_workflow_id, modifier={"units": [unit_0, unit_1]})
workflow = client.workflows.list(QUERY, OPTIONS)[0]
jobs = client.jobs.create_by_ids(
    materials=saved_materials, workflow_id=workflow["_id"], project_id=project_id, prefix="Band Gap", owner_id=OWNER_ID
)
jobs_set = client.jobs.create_set({"name": "MoS2 Twisted Interfaces Band Gaps", "projectId": project_id, "owner": {"_id": OWNER_ID}})
for job in jobs:
    client.jobs.move_to_set(job["_id"], "", jobs_set["_id"])
context = {"isKgridEdited": True, "subworkflowContext": {}, "kgrid": {"dimensions": [6, 6, 1], "shifts": [0, 0, 0]}}
for job in jobs:
    client.jobs.update(id_=job["_id"], modifier={"updateParameters": {"skipRender": False}, "workflow.subworkflows.1.units.0.context": context})
updated = client.jobs.get(jobs[0]["_id"])
check("updateParameters" not in updated, "updateParameters was stored")
step("twisted-mos2", [workflow["name"], len(workflow["subworkflows"]), updated["workflow"]["subworkflows"][1]["units"][0]["context"]["kgrid"]["dimensions"]])
