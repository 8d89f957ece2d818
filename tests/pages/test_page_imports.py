"""The experiment pages' imports are made ahead, on a thread, once the first page is drawn (ui/navigation.py,
:func:`import_pages_ahead`): a first click on the Overview's demo then opens its page without importing torch
on the way (seconds on a cold server)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from apphelpers import APP, REPO_ROOT

PROGRAM = f"""
import json, sys, threading, time
from streamlit.testing.v1 import AppTest
from ui.navigation import PAGE_IMPORTS
at = AppTest.from_file({str(APP)!r}, default_timeout=300)
at.run()  # the Overview only: it imports none of PAGE_IMPORTS itself
assert not at.exception, [e.value for e in at.exception]
deadline = time.monotonic() + 300
while time.monotonic() < deadline and not all(m in sys.modules for m in PAGE_IMPORTS):
    time.sleep(0.1)
for thread in threading.enumerate():
    if thread.name == "embedlab-page-imports":
        thread.join(300)
ahead = [m for m in PAGE_IMPORTS if m in sys.modules]
at.switch_page("views/isotropy.py").run()
assert not at.exception, [e.value for e in at.exception]
print(json.dumps({{"ahead": ahead, "torch": "torch" in sys.modules}}))
"""


def test_the_first_page_imports_the_experiment_pages_torch_ahead(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "EMBEDLAB_CACHE_DIR": str(tmp_path),
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": str(REPO_ROOT),
    }
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    from ui.navigation import PAGE_IMPORTS

    assert found == {"ahead": list(PAGE_IMPORTS), "torch": True}, found
