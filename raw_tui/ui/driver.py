"""Textual's Linux driver, safe on a terminal that hung up (an SSH drop, a closed window).

On a hang-up the kernel sends SIGHUP and SIGCONT. Textual's SIGCONT handler resumes
"application mode" (it takes SIGCONT for the end of a Ctrl+Z suspension): on the dead
terminal that starts a second output thread, which dies on its first write (EIO), and the
app's next 30 writes fill its queue; the app then blocks for ever, at the latest at exit
(seen as a client stuck in a futex). Here a SIGCONT resumes only a live terminal, and once
the output thread is dead writes are dropped instead of queued.
"""

from __future__ import annotations

import os

from textual.drivers.linux_driver import LinuxDriver


class HangupSafeDriver(LinuxDriver):
    def _sigcont_application(self, *args) -> None:
        if os.isatty(self.fileno):  # a hung-up terminal answers EIO: not a tty any more
            super()._sigcont_application(*args)

    def write(self, data: str) -> None:
        writer = self._writer_thread
        if writer is not None and writer.ident is not None and not writer.is_alive():
            return  # the terminal is gone: nobody reads this
        super().write(data)

    def close(self) -> None:
        writer = self._writer_thread
        if writer is not None and writer.ident is not None and not writer.is_alive():
            return
        super().close()
