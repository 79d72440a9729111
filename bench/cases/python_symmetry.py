"""pymatgen's SpacegroupAnalyzer per material, as the platform computes its `symmetry` derived
property (express: `SpacegroupAnalyzer(structure).get_space_group_symbol()`, default tolerances),
over the same structures the client case reads: the bench server's materials, downloaded first
(untimed), every k-th of them so that `sample` structures are timed; or, with `file`, every
structure of that JSON file (the real, distinct structures of data/reference-materials.json),
after one unmeasured pass over them as the matframe side has.

Run by bench/run.js with Debian's /usr/bin/python3 (python3-pymatgen, python3-requests).
"""
import json
import os
import resource
import sys
import time
import warnings

import requests
from pymatgen.core import Lattice, Structure
from pymatgen.symmetry.analyzer import SpacegroupAnalyzer

warnings.filterwarnings("ignore")
RESULT_PREFIX = "BENCH_RESULT "


def cell_of(lattice):
    v = lattice.get("vectors")
    if v:
        alat = v.get("alat", 1)
        return [[x * alat for x in v[k]] for k in ("a", "b", "c")]
    return Lattice.from_parameters(lattice["a"], lattice["b"], lattice["c"], lattice["alpha"], lattice["beta"], lattice["gamma"]).matrix


def read_server(params):
    credentials = params["credentials"]
    headers = {"X-Account-Id": credentials["accountId"], "X-Auth-Token": credentials["authToken"]}
    session = requests.Session()
    records = []
    skip = 0
    while True:
        projection = {"fields": {"lattice": 1, "basis": 1}, "sort": {"_id": 1}, "skip": skip, "limit": 500}
        response = session.get(f"{params['baseUrl']}/materials", params={"projection": json.dumps(projection)}, headers=headers)
        response.raise_for_status()
        page = response.json()["data"]
        records.extend(page)
        if len(page) < 500:
            break
        skip += 500
    if params.get("expected") is not None and len(records) != params["expected"]:
        raise SystemExit(f"read {len(records)} records, expected {params['expected']}")
    step = max(1, len(records) // params["sample"])
    return records[::step][: params["sample"]]


def main():
    params = json.loads(os.environ["BENCH_PARAMS"])
    if params.get("file"):
        with open(params["file"]) as f:
            sample = json.load(f)
    else:
        sample = read_server(params)
    structures = []
    for r in sample:
        coords = {c["id"]: c["value"] for c in r["basis"]["coordinates"]}
        species = [e["value"] for e in r["basis"]["elements"]]
        positions = [coords[e["id"]] for e in r["basis"]["elements"]]
        structures.append((cell_of(r["lattice"]), species, positions, r["basis"].get("units", "crystal") == "cartesian"))

    if params.get("file"):
        # One unmeasured pass, as the matframe side has (pymatgen keeps no results between calls).
        for cell, species, positions, cartesian in structures:
            SpacegroupAnalyzer(Structure(Lattice(cell), species, positions, coords_are_cartesian=cartesian))
    start = time.perf_counter()
    cpu_start = time.process_time()
    groups = set()
    for cell, species, positions, cartesian in structures:
        # Building the Structure is part of the per-material cost, as in the platform's code.
        s = Structure(Lattice(cell), species, positions, coords_are_cartesian=cartesian)
        groups.add(SpacegroupAnalyzer(s).get_space_group_number())
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    max_rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(RESULT_PREFIX + json.dumps({"seconds": seconds, "cpuSeconds": cpu_seconds, "records": len(structures), "spaceGroups": len(groups), "maxRssKiB": max_rss_kib}))


if __name__ == "__main__":
    main()
