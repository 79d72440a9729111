"""What pandas makes of a results CSV (a reader and a frame library matframe did not write), for
results-pandas.test.ts: the statistics notebook 08 shows, per group, and the rows a filter keeps.

argv: the CSV file; stdin: {"groups": [[key, ...], ...], "filters": [pandas query strings]}.
Prints {"groups": [[{key: value, ..., "count", "mean", "median"}, ...], ...], "filters": [[job._id, ...], ...]}.
"""
import json
import sys

import pandas as pd

frame = pd.read_csv(sys.argv[1])
frame["U"] = frame["model.hubbardType"].fillna("none")
asked = json.load(sys.stdin)
out = {"groups": [], "filters": []}
for keys in asked["groups"]:
    stats = frame.groupby(keys)["band_gaps.indirect"].agg(["count", "mean", "median"]).reset_index()
    out["groups"].append(stats.to_dict(orient="records"))
for expression in asked["filters"]:
    out["filters"].append(sorted(frame.query(expression, engine="python")["job._id"].tolist()))
print(json.dumps(out))
