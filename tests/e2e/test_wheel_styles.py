"""styles/ ships in the wheel: installed into a fresh venv, the app finds its sheets in
site-packages (the package raw_tui.styles) and draws its main screen."""

from __future__ import annotations

import site
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent("""
    import asyncio, sys
    import raw_tui
    from raw_tui.ui.styles import styles_dir
    from raw_tui.protocol.bus import Bus
    from raw_tui.protocol.client import InProcessTransport
    from raw_tui.protocol.commands import Reply, SessionInfo, UiSettings
    from raw_tui.ui.app import RawApp

    class Session:
        bus = Bus()
        info = SessionInfo(session_id="s", agent="wheel", model="m", max_steps=1, cwd="/")
        async def open(self, watch=False): pass
        async def handle(self, command): return Reply()
        def saved_sessions(self): return []
        def ui_settings(self): return UiSettings()
        async def close(self): pass

    async def main():
        app = RawApp(InProcessTransport.of(Session()))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            status = app.main.status_line.styles.height
        print(raw_tui.__file__)
        print(styles_dir())
        print(status)

    asyncio.run(main())
""")


def test_the_installed_wheel_finds_its_styles(tmp_path):
    wheels = tmp_path / "wheels"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(wheels),
                            str(REPO)], check=True, capture_output=True, text=True, timeout=300)
    # the demo's tool and hook folders hold .py files: setuptools warned about each once
    assert "Warning" not in built.stdout + built.stderr, built.stdout + built.stderr
    (wheel,) = wheels.glob("raw_tui-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    target = next((venv / "lib").glob("python*/site-packages"))
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target",
                    str(target), str(wheel)], check=True, capture_output=True, timeout=300)
    # the dependencies come from this interpreter's site-packages, listed after the venv's
    # own (a path on PYTHONPATH runs no .pth file: this checkout's editable install stays out)
    deps = ":".join(site.getsitepackages())
    proc = subprocess.run([str(venv / "bin" / "python"), "-c", SCRIPT], cwd=tmp_path,
                          env={"PYTHONPATH": f"{target}:{deps}", "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    module, styles, dock = proc.stdout.split("\n")[:3]
    assert module.startswith(str(target))
    assert styles == str(target / "raw_tui" / "styles")
    assert (Path(styles) / "app.tcss").is_file()
    assert dock == "1"  # status_line.tcss (height: 1) was loaded from the wheel
