"""Reads a results CSV with pandas (a reader matframe did not write) and prints, per row, the job,
unit, method, model and band gaps as JSON, so results.test.ts can compare them with raw HTTP."""
import json
import sys

import pandas as pd

frame = pd.read_csv(sys.argv[1])
rows = []
for record in frame.to_dict(orient="records"):
    rows.append({k: (None if isinstance(v, float) and v != v else v) for k, v in record.items()})
print(json.dumps({"columns": list(frame.columns), "dtypes": {k: str(v) for k, v in frame.dtypes.items()}, "rows": rows}))
