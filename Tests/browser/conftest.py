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


@pytest.fixture
def closing():
    """`closing(make)` is `make` that also remembers what it made; all of it is closed when
    the test ends (pages, contexts), whether it passed or not."""
    made = []

    def remembering(make):
        def open_(*args, **kwargs):
            thing = make(*args, **kwargs)
            made.append(thing)
            return thing
        return open_

    yield remembering
    for thing in made:
        thing.close()
