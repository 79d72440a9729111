"""numpy's histogram counts and pandas' quartiles of the values on stdin, for distribution-charts.test.ts.

stdin: {"values": [...], "bins": n, "groups": {name: [...]}}; prints {"counts": [...], "edges": [...],
"quartiles": {name: [q1, median, q3]}}.
"""
import json
import sys

import numpy as np
import pandas as pd

asked = json.load(sys.stdin)
counts, edges = np.histogram(asked["values"], bins=asked["bins"])
quartiles = {name: [float(q) for q in pd.Series(values).quantile([0.25, 0.5, 0.75])] for name, values in asked["groups"].items()}
print(json.dumps({"counts": counts.tolist(), "edges": edges.tolist(), "quartiles": quartiles}))
