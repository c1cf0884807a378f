"""Runs calls of clients/python/cei.py and prints what each did, as one JSON line each.

argv[1]: JSON {"base_url", "api_key", "options"?, "calls": [[operation_id, params], ...], "ready"?}.
Each line: {"ok": body} or {"error": class name, "status", "message", "details"}, with the
retries the client reported before it and the seconds the call took. With "ready", the client
first loads its routes (GET /healthz, free), prints "ready" and waits for a line on stdin.
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python"))

import cei  # noqa: E402

spec = json.loads(sys.argv[1])
retries = []
client = cei.CeiClient(spec["base_url"], spec["api_key"], on_retry=retries.append, **spec.get("options", {}))
if spec.get("ready"):
    client.call("healthz")
    print("ready", flush=True)
    sys.stdin.readline()
for operation_id, params in spec["calls"]:
    retries.clear()
    started = time.monotonic()
    try:
        outcome = {"ok": client.call(operation_id, **params)}
    except cei.CeiApiError as error:
        outcome = {"error": type(error).__name__, "status": error.status, "message": error.message, "details": error.details}
    except cei.CeiError as error:
        outcome = {"error": type(error).__name__, "message": str(error)}
    outcome["retries"] = list(retries)
    outcome["seconds"] = time.monotonic() - started
    print(json.dumps(outcome), flush=True)
