"""The platform's own Python client (mat3ra-api-client, unmodified) against `matframe serve`.

Run by python-client.test.ts with API_HOST, API_PORT and a POSCAR file path in the environment;
prints one JSON line per step and exits non-zero on the first failure.
"""
import json
import os
import sys

from mat3ra.api_client import APIClient, AuthContext, LoginEndpoint, MaterialEndpoints

HOST = os.environ["API_HOST"]
PORT = int(os.environ["API_PORT"])
POSCAR = open(os.environ["MATFRAME_POSCAR"]).read()


def step(name, value):
    print(json.dumps({"step": name, "value": value}), flush=True)


def check(condition, message):
    if not condition:
        raise SystemExit(f"FAILED: {message}")


def loop(materials, account_id, label):
    created = materials.create({"name": f"{label} material", "tags": ["python"]})
    check(len(created["_id"]) == 17 and created["owner"]["_id"] == account_id, f"create: {created}")
    step(f"{label}:create", created["_id"])

    listed = materials.list({"_id": created["_id"]}, {"limit": 10})
    check([m["_id"] for m in listed] == [created["_id"]], f"list: {listed}")
    public = materials.list({"formula": "Si"}, {"limit": 50})
    check(len(public) > 0, "list: the bundled silicon is missing")
    step(f"{label}:list", len(public))

    got = materials.get(created["_id"])
    check(got["name"] == f"{label} material", f"get: {got}")
    step(f"{label}:get", got["name"])

    updated = materials.update(created["_id"], {"$set": {"name": f"{label} renamed"}, "$push": {"tags": "updated"}})
    check(updated["name"] == f"{label} renamed" and updated["tags"] == ["python", "updated"], f"update: {updated}")
    step(f"{label}:update", updated["name"])

    # The client's own integration test (test_update_material) renames with a plain dictionary of
    # fields, which the platform takes as $set of them.
    renamed = materials.update(created["_id"], {"name": f"{label} plain"})
    check(renamed["name"] == f"{label} plain" and renamed["tags"] == ["python", "updated"], f"update with fields: {renamed}")
    step(f"{label}:update-fields", renamed["name"])

    copied = materials.copy(public[0]["_id"])
    check(copied["_id"] != public[0]["_id"] and copied["name"] == public[0]["name"], f"copy: {copied}")
    check(copied["owner"]["_id"] == account_id, f"copy owner: {copied['owner']}")
    step(f"{label}:copy", copied["_id"])

    imported = materials.import_from_file(f"{label} imported Si", POSCAR, tags=["imported"])
    check(imported["formula"] == "Si" and imported["tags"] == ["imported"], f"import: {imported}")
    density = [p["value"] for p in imported["derivedProperties"] if p["name"] == "density"][0]
    step(f"{label}:import", {"formula": imported["formula"], "density": density})

    for record in (created, copied, imported):
        materials.delete(record["_id"])
    gone = materials.list({"_id": {"$in": [created["_id"], copied["_id"], imported["_id"]]}})
    check(gone == [], f"delete: {gone}")
    step(f"{label}:delete", 3)


def main():
    login = LoginEndpoint(HOST, PORT, "demo", "demo", secure=False).login()
    account_id, auth_token = login["X-Account-Id"], login["X-Auth-Token"]

    # The X-Account-Id / X-Auth-Token pair.
    loop(MaterialEndpoints(HOST, PORT, account_id, auth_token, secure=False), account_id, "headers")

    # A Bearer token, as the client sends OIDC_ACCESS_TOKEN (it then drops the X- headers).
    os.environ["OIDC_ACCESS_TOKEN"] = auth_token
    client = APIClient.authenticate(host=HOST, port=PORT, secure=False)
    check(client.auth.access_token == auth_token, "the client did not read OIDC_ACCESS_TOKEN")
    loop(client.materials, account_id, "bearer")

    # And an access_token given directly.
    direct = MaterialEndpoints(HOST, PORT, "", "", secure=False, auth=AuthContext(access_token=auth_token))
    check(direct.get(direct.list({}, {"limit": 1})[0]["_id"])["_id"], "access_token: get failed")
    step("access_token:get", True)
    print("OK", flush=True)


if __name__ == "__main__":
    sys.exit(main())
