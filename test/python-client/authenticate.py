# Runs the platform's example-notebook sign-in, `await authenticate()` from Exabyte-io/api-examples
# (unmodified, from MATFRAME_API_EXAMPLES_SRC), against the platform named by API_HOST, API_PORT
# and API_SECURE, then reads the account through the platform's Python client as the notebooks
# do (`APIClient.authenticate()`, `my_account`, `list_accounts()`, `my_organization`).
#
# Only the notebook display is replaced: IPython's `display` prints what it is given (the popup's
# HTML, with the verification link), since there is no notebook front end here.
import asyncio
import json
import os
import sys
import types

sys.path[:0] = [os.path.join(os.environ["MATFRAME_PYTHON_CLIENT_SRC"], "src", "py"), os.path.join(os.environ["MATFRAME_API_EXAMPLES_SRC"], "src", "py")]


class Shown:
    def __init__(self, data):
        self.data = data


def display(*objects):
    for shown in objects:
        print("DISPLAY", getattr(shown, "data", shown), flush=True)


ipython_display = types.ModuleType("IPython.display")
ipython_display.HTML = ipython_display.Javascript = Shown
ipython_display.display = display
ipython = types.ModuleType("IPython")
ipython.display = ipython_display
sys.modules.update({"IPython": ipython, "IPython.display": ipython_display, "ipywidgets": types.ModuleType("ipywidgets")})

from mat3ra.notebooks_utils.auth import authenticate  # noqa: E402

asyncio.run(authenticate(globals_dict={}))

from mat3ra.api_client import ACCESS_TOKEN_ENV_VAR, APIClient  # noqa: E402

client = APIClient.authenticate()
organization = client.my_organization
materials = client.materials.list({}, {"limit": 2})
print(
    "RESULT",
    json.dumps(
        {
            "token_set": bool(os.environ.get(ACCESS_TOKEN_ENV_VAR)),
            "refresh_set": bool(os.environ.get("OIDC_REFRESH_TOKEN")),
            "account_id": client.my_account.id,
            "account_name": client.my_account.name,
            "accounts": client.list_accounts(),
            "organization": None if organization is None else organization.id,
            "materials": len(materials),
        }
    ),
    flush=True,
)
