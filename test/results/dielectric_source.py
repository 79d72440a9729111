"""matminer's dielectric_constant CSV as pandas reads it (a reader matframe did not write), for
dielectric.test.ts: per Materials Project id, every column the reference results serve.

argv: the gzipped CSV. Prints {"mp-...": {"band_gap", "e_electronic", "e_total", "poly_electronic",
"poly_total", "n", "pot_ferroelectric"}} as JSON; the tensors, which the CSV holds as text, are read
with Python's own literal reader, and the material id from the `meta` column (a Python dict's repr).
"""
import ast
import json
import sys

import pandas as pd

# The first line is a citation comment; round_trip parses each number to the double it names.
frame = pd.read_csv(sys.argv[1], comment="#", float_precision="round_trip")
out = {}
for row in frame.itertuples(index=False):
    out[ast.literal_eval(row.meta)["material_id"]] = {
        "band_gap": row.band_gap,
        "e_electronic": ast.literal_eval(row.e_electronic),
        "e_total": ast.literal_eval(row.e_total),
        "poly_electronic": row.poly_electronic,
        "poly_total": row.poly_total,
        "n": row.n,
        "pot_ferroelectric": bool(row.pot_ferroelectric),
    }
print(json.dumps(out))
