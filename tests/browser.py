"""Headless Chromium for the HTML report's tests (selenium, with the system's
chromium and chromedriver: nothing is downloaded).

:func:`chromium` yields a driver whose network is off (DevTools
``Network.emulateNetworkConditions`` offline, on top of the page's own
Content-Security-Policy), so a report that needed the network would show it; the
browser's console is logged, for :func:`console_errors`. A machine without the
browser, its driver or selenium skips the test with the reason (it fails under
``GECMETRICS_REQUIRE_DATA=1``: tests/conftest.py).
"""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from conftest import skip_or_fail

#: Where Debian's packages put them (.ci/run installs them where missing).
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
DRIVER = "chromedriver"


def require_browser() -> tuple[str, str]:
    """(browser, driver) paths, or skip (fail in CI) with the reason."""
    if importlib.util.find_spec("selenium") is None:
        skip_or_fail('selenium is not installed; pip install ".[test]"')
    browser = next((p for p in map(shutil.which, BROWSERS) if p), None)
    driver = shutil.which(DRIVER)
    if browser is None or driver is None:
        skip_or_fail("headless Chromium is not installed (needs chromium and chromium-driver: "
                     "apt-get install -y chromium chromium-driver)")
    assert browser is not None and driver is not None
    return browser, driver


@contextmanager
def chromium(width: int = 1280, height: int = 900) -> Iterator[Any]:
    """A headless Chromium driver with the network off and the console logged."""
    browser, driver_path = require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", "--hide-scrollbars"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    try:
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0})
        yield driver
    finally:
        driver.quit()


def console_errors(driver: Any) -> list[str]:
    """The console's messages of level SEVERE (script errors, blocked requests)."""
    return [entry["message"] for entry in driver.get_log("browser")
            if entry.get("level") == "SEVERE"]
