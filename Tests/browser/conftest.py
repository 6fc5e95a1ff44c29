"""What the browser tests share: one Debian chromium, launched once per session (Playwright's
sync API allows one running instance per thread, so every test file takes this one)."""
import shutil

import pytest
from playwright.sync_api import sync_playwright


@pytest.fixture(scope="session")
def browser():
    exe = shutil.which("chromium")
    assert exe, "chromium is not installed (apt-get install chromium)"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe)
        yield b
        b.close()
