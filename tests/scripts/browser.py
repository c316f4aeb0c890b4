# SPDX-License-Identifier: GPL-2.0-or-later
# Headless Chromium for the tests and the benchmark of the HTML report.
#
# Copyright (C) 2026, the aprof-trms authors.
"""Debian's chromium in headless mode, driven by python3-selenium through
chromium-driver (scripts/lib/build.sh installs all three):

    with browser.Chromium() as b:
        b.open("/tmp/report.html")            # waits until the page is ready
        rows = b.css("#routine-table tbody tr.row")
        assert b.console_errors() == []

open() waits for document.body.dataset.ready, which report.js sets as its
last statement: a page whose script stopped on an error never becomes ready.
"""
import os

from debian_packages import find_program

CHROMIUM = find_program("chromium")
CHROMEDRIVER = find_program("chromedriver")
READY_TIMEOUT = 30  # seconds; generous, the machine is shared


class BrowserMissing(Exception):
    pass


def _require():
    missing = [name for name, path in (("chromium", CHROMIUM), ("chromedriver", CHROMEDRIVER))
               if path is None]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("python3-selenium")
    if missing:
        raise BrowserMissing(f"the browser tests need {', '.join(missing)} (Debian: apt-get install "
                             "chromium chromium-driver python3-selenium; scripts/run-tests.sh "
                             "installs them)")


class Chromium:
    def __init__(self, width: int = 1400, height: int = 1000):
        _require()
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
        options = Options()
        options.binary_location = CHROMIUM
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    f"--window-size={width},{height}"):
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self._log = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.driver.quit()

    def open(self, path: str) -> None:
        from selenium.webdriver.support.ui import WebDriverWait
        self.driver.get("file://" + os.path.abspath(path))
        try:
            WebDriverWait(self.driver, READY_TIMEOUT).until(
                lambda d: d.execute_script("return document.body && document.body.dataset.ready"))
        except Exception as e:
            raise AssertionError(f"{path}: the page did not become ready; console: "
                                 f"{self.console()}") from e

    def console(self):
        """Console messages since the last call (and kept for console_errors)."""
        new = self.driver.get_log("browser")
        self._log += new
        return new

    def console_errors(self):
        self.console()
        return [m for m in self._log if m.get("level") == "SEVERE"]

    def css(self, selector: str):
        return self.driver.find_elements("css selector", selector)

    def js(self, script: str, *args):
        return self.driver.execute_script(script, *args)

    def screenshot(self, path: str, full_page: bool = False) -> str:
        """Saves the window (full_page: the whole page, by growing the
        window to its height and back) as a PNG file."""
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        size = self.driver.get_window_size()
        if full_page:
            height = self.js("return document.documentElement.scrollHeight")
            self.driver.set_window_size(size["width"], height + 100)
        try:
            if not self.driver.save_screenshot(path):
                raise AssertionError(f"screenshot {path} not written")
        finally:
            if full_page:
                self.driver.set_window_size(size["width"], size["height"])
        return path


def artifacts_dir(fallback) -> str:
    """Where tests keep screenshots: BUILDDIR/tests/artifacts under make
    check (derived from APROF_TEST_PROGRAMS = BUILDDIR/tests/tool/programs),
    `fallback` otherwise."""
    programs = os.environ.get("APROF_TEST_PROGRAMS")
    if programs:
        path = os.path.normpath(os.path.join(programs, "..", "..", "artifacts"))
    else:
        path = os.fspath(fallback)
    os.makedirs(path, exist_ok=True)
    return path

