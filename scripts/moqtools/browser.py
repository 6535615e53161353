"""A headless Chromium for the page checks, driven by Selenium (Debian's python3-selenium)
through Debian's chromium-driver.

    with Browser() as browser:
        page = browser.open("file:///.../page.html", width=1280, height=900)
        text = page.evaluate("document.title")
        page.screenshot("page.png")

Each open() is a window of its own, sized as asked, its page loaded. Every wait is
bounded: a browser that does not answer within its timeout raises BrowserError, and
leaving the block always ends the browser and its driver.
"""

import base64
import os
import shutil

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service

# Awaits the expression (a promise or a value) and hands back {value} or {error}: a page
# that throws is an answer, not a driver failure.
EVALUATE = """
const done = arguments[arguments.length - 1];
try {
    Promise.resolve(eval(arguments[0])).then(
        (value) => done({value: value === undefined ? null : value}),
        (error) => done({error: String(error && error.stack || error)}));
} catch (error) {
    done({error: String(error && error.stack || error)});
}
"""


class BrowserError(Exception):
    pass


def find_program(*names):
    """The first of `names` on PATH, or None."""
    return next((shutil.which(name) for name in names if shutil.which(name)), None)


class Page:
    def __init__(self, browser, window):
        self._browser = browser
        self._window = window

    def _driver(self):
        driver = self._browser.driver
        if driver.current_window_handle != self._window:
            driver.switch_to.window(self._window)
        return driver

    def evaluate(self, expression, timeout=20):
        """The value of a JavaScript expression in the page (a promise is awaited)."""
        try:
            driver = self._driver()
            driver.set_script_timeout(timeout)
            answer = driver.execute_async_script(EVALUATE, expression)
        except WebDriverException as error:
            raise BrowserError(f"evaluating in the page failed: {error.msg}") from error
        if "error" in answer:
            raise BrowserError(f"the page threw: {answer['error']}")
        return answer["value"]

    def screenshot(self, path, full_page=True):
        """Writes a PNG of the page (the whole page, not only the window, by default)."""
        params = {"format": "png"}
        try:
            driver = self._driver()
            if full_page:
                size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
                params["clip"] = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
                params["captureBeyondViewport"] = True
            data = base64.b64decode(driver.execute_cdp_cmd("Page.captureScreenshot", params)["data"])
        except WebDriverException as error:
            raise BrowserError(f"the screenshot failed: {error.msg}") from error
        temp = f"{path}.{os.getpid()}.tmp"
        try:
            with open(temp, "wb") as out:
                out.write(data)
            os.replace(temp, path)
        finally:
            if os.path.exists(temp):
                os.remove(temp)


class Browser:
    def __init__(self, timeout=30):
        self._chromium = find_program("chromium", "chromium-browser")
        self._driver_program = find_program("chromedriver")
        if not self._chromium or not self._driver_program:
            raise BrowserError("chromium or chromedriver not found (the Debian packages chromium and "
                               "chromium-driver provide them)")
        self._timeout = timeout
        self.driver = None
        self._first_window = True

    def __enter__(self):
        options = webdriver.ChromeOptions()
        options.binary_location = self._chromium
        for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                     "--disable-extensions", "--disable-background-networking", "--disable-dev-shm-usage",
                     "--mute-audio"):
            options.add_argument(flag)
        try:
            self.driver = webdriver.Chrome(service=Service(executable_path=self._driver_program), options=options)
            self.driver.set_page_load_timeout(self._timeout)
        except WebDriverException as error:
            raise BrowserError(f"cannot start chromium through chromedriver: {error.msg}") from error
        return self

    def __exit__(self, *exc):
        if self.driver is not None:
            try:
                self.driver.quit()
            except WebDriverException:
                pass
            self.driver = None
        return False

    def open(self, url, width=1280, height=900):
        """A new window at url, loaded (its load event fired), with a viewport of width x height."""
        try:
            if self._first_window:
                self._first_window = False
            else:
                self.driver.switch_to.new_window("window")
            self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                        {"width": width, "height": height, "deviceScaleFactor": 1,
                                         "mobile": False})
            self.driver.get(url)
            return Page(self, self.driver.current_window_handle)
        except WebDriverException as error:
            raise BrowserError(f"cannot open {url}: {error.msg}") from error
