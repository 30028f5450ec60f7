"""Short runs of the two soak scripts (the full figures: 1,000 + 1,000 and 50 kills, printed
by the scripts themselves; see README)."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.config_kit import REPO


def script(name: str, *args: str, timeout: float = 300) -> str:
    done = subprocess.run([sys.executable, str(REPO / "scripts" / name), *args],
                          capture_output=True, text=True, timeout=timeout, cwd=REPO)
    print(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_leak_soak_leaves_no_survivor():
    out = script("leak_soak.py", "--bash", "24", "--hooks", "24", "--parallel", "6",
                 "--seed", "11")
    assert re.search(r"24 bash timeouts and cancels, 24 hook timeouts in [\d.]+ s: "
                     r"survivors 0, unreaped zombies 0", out), out


def test_kill_9_soak_loses_no_event():
    out = script("kill9_soak.py", "--kills", "4", "--seed", "5")
    published = int(re.search(r"(\d+) events published before the kills", out).group(1))
    assert published > 0 and out.rstrip().endswith("runs that wrote nothing 0; events lost 0"), out
