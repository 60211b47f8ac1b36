#!/usr/bin/env python3
"""Drives the researcher web console (/console) in a real headless Chromium, end to end.

    python3 Deploy/dev/console/browser_test.py --base https://127.0.0.1:18531 \
        --token-file /tmp/x/.custodian/admin-token [--screenshots docs/console]

Deploy/dev/console-browser.sh starts a platform and runs this. Each step prints `ok <step>`; the first failure prints
what was expected, the URL and the start of the page source, and exits 1. Needs selenium (4.x), /usr/bin/chromium and
/usr/bin/chromedriver; nothing else beyond the standard library. Response headers and forged requests (CSP, CSRF,
revoked sessions) are checked with http.client, since a browser cannot show or make them.
"""

import argparse
import http.client
import os
import re
import secrets
import shutil
import ssl
import sys
import tempfile
import time
import traceback
import urllib.parse

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import Select, WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
COOKIE = "custodian_console"
WAIT = 15  # seconds for a page, an element or a download
SERVICES = ["auth", "vault", "routes", "devices", "statistics", "links"]  # Shared/CustodianProcess/Platform.swift
# Names the console's templates must use (docs/console.md); every other id is written where it is used.
LOGOUT_FORM = "form#logout-form"                                          # in the navigation, with button#logout
ACTIVATION_SECRET = ("input#activation-token", "activation_token")  # the device form's secret: id, name


from checks import Failure, check  # noqa: E402 - beside this file
from twomes_steps import step_cohort, step_participant_and_device, step_search, step_silent  # noqa: E402


class Context:
    def __init__(self, args):
        self.base = args.base.rstrip("/")
        with open(args.token_file) as f:
            self.token = f.read().strip()
        self.screenshots = args.screenshots
        if self.screenshots:
            os.makedirs(self.screenshots, exist_ok=True)
        self.downloads = tempfile.mkdtemp(prefix="console-downloads.")
        self.driver = None
        self.cookie_value = None
        self.pseudonym = None
        self.researcher_token = None
        self.device = "TWOMES-" + secrets.token_hex(3).upper()
        self.secret = "".join(secrets.choice("0123456789") for _ in range(8))

    # --- the browser --------------------------------------------------------------------------------------------

    def start_browser(self):
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--ignore-certificate-errors",
                         "--window-size=1280,1000"):
            options.add_argument(argument)
        options.add_experimental_option("prefs", {
            "download.default_directory": self.downloads,
            "download.prompt_for_download": False,
            "download.directory_upgrade": True,
        })
        # A driver path given: Selenium Manager is not asked for one (no network).
        self.driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
        self.driver.set_window_size(1280, 1000)
        self.driver.set_page_load_timeout(30)
        try:
            self.driver.execute_cdp_cmd("Browser.setDownloadBehavior",
                                        {"behavior": "allow", "downloadPath": self.downloads})
        except WebDriverException:
            self.driver.execute_cdp_cmd("Page.setDownloadBehavior",
                                        {"behavior": "allow", "downloadPath": self.downloads})

    def close(self):
        if self.driver:
            try:
                self.driver.quit()
            except WebDriverException:
                pass
        shutil.rmtree(self.downloads, ignore_errors=True)

    def url(self, path):
        return self.base + path

    def path(self):
        return urllib.parse.urlsplit(self.driver.current_url).path

    def wait(self, condition, message, timeout=WAIT):
        # While a page is replaced, Chromium can answer a query with a passing
        # error ("Cannot find context with specified id", "target frame
        # detached") instead of a stale element; CI once failed on one at once
        # although the new page had loaded. Such errors are polled past, and
        # the last one is shown if the wait runs out.
        last = []

        def polled(driver):
            try:
                return condition(driver)
            except WebDriverException as error:
                last[:] = [error]
                return False

        try:
            return WebDriverWait(self.driver, timeout).until(polled)
        except WebDriverException:
            detail = f" (last error: {last[0].msg or type(last[0]).__name__})" if last else ""
            raise Failure(message + detail) from None

    def wait_for_path(self, path):
        self.wait(lambda d: self.path() == path, f"expected to be on {path}")
        self.wait(lambda d: d.execute_script("return document.readyState") == "complete",
                  f"{path} did not finish loading")

    def find(self, css, what=None):
        elements = self.driver.find_elements(By.CSS_SELECTOR, css)
        check(elements, f"no {what or css} on {self.path()}")
        return elements[0]

    def submit(self, css):
        """Clicks a submit button and waits for the page it leads to."""
        button = self.find(css)
        old = self.driver.find_element(By.TAG_NAME, "html")
        button.click()
        self.wait(expected_conditions.staleness_of(old), f"clicking {css} did not load a new page")
        self.wait(lambda d: d.execute_script("return document.readyState") == "complete",
                  f"the page after {css} did not finish loading")

    def follow(self, link_id, path):
        """Clicks a navigation link and checks where it leads."""
        link = self.find(f"a#{link_id}", f"navigation link a#{link_id}")
        old = self.driver.find_element(By.TAG_NAME, "html")
        link.click()
        self.wait(expected_conditions.staleness_of(old), f"a#{link_id} did not load a new page")
        self.wait_for_path(path)
        self.check_page(path)

    def status(self):
        """The HTTP status of the current document (0 when the browser does not say)."""
        return self.driver.execute_script(
            "const n = performance.getEntriesByType('navigation')[0]; return n ? (n.responseStatus || 0) : 0;")

    def check_page(self, what, h1=None):
        """No error status, the expected heading, and a CSRF token in every POST form."""
        status = self.status()
        check(status == 0 or status < 400, f"{what} answered HTTP {status}")
        if h1 is not None:
            headings = self.driver.find_elements(By.TAG_NAME, "h1")
            check(headings, f"{what} has no h1")
            check(headings[0].text.strip() == h1, f"{what}: h1 is {headings[0].text.strip()!r}, expected {h1!r}")
        self.check_csrf_fields(what)
        self.check_headings(what)
        self.check_checkboxes(what)

    def check_headings(self, what):
        """No heading says what another on the page says: each names its own part."""
        texts = [h.text.strip() for h in self.driver.find_elements(By.CSS_SELECTOR, "h1, h2, h3") if h.text.strip()]
        repeated = sorted({t for t in texts if texts.count(t) > 1})
        check(not repeated, f"{what}: the headings {repeated} appear more than once")

    def check_checkboxes(self, what):
        """A labelled checkbox sits beside its label, on its line, not above or below it."""
        for box in self.driver.find_elements(By.CSS_SELECTOR, "input[type=checkbox][id]"):
            labels = self.driver.find_elements(By.CSS_SELECTOR, f'label[for="{box.get_attribute("id")}"]')
            if not labels or not box.is_displayed():
                continue
            b, l = box.rect, labels[0].rect
            centre = b["y"] + b["height"] / 2
            check(l["y"] <= centre <= l["y"] + l["height"] and l["x"] > b["x"],
                  f"{what}: checkbox #{box.get_attribute('id')} is not beside its label (box {b}, label {l})")

    def check_csrf_fields(self, what):
        for form in self.driver.find_elements(By.TAG_NAME, "form"):
            if (form.get_attribute("method") or "get").lower() != "post":
                continue
            name = form.get_attribute("id") or form.get_attribute("action")
            fields = form.find_elements(By.CSS_SELECTOR, "input[name=csrf]")
            check(fields, f"{what}: the POST form {name} has no input[name=csrf]")
            check(fields[0].get_attribute("type") == "hidden", f"{what}: the csrf field of form {name} is not hidden")
            check((fields[0].get_attribute("value") or "").strip(), f"{what}: the csrf field of form {name} is empty")

    def screenshot(self, name):
        if self.screenshots:
            path = os.path.join(self.screenshots, name)
            check(self.driver.save_screenshot(path), f"could not save {path}")

    # --- raw HTTP, for headers and requests a browser will not make -----------------------------------------------

    def raw(self, method, path, headers=None, body=None):
        parts = urllib.parse.urlsplit(self.base)
        if parts.scheme == "https":
            connection = http.client.HTTPSConnection(parts.hostname, parts.port or 443, timeout=30,
                                                     context=ssl._create_unverified_context())
        else:
            connection = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=30)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.headers, response.read()
        finally:
            connection.close()

    def redirect_path(self, headers):
        location = headers.get("Location", "")
        return urllib.parse.urlsplit(urllib.parse.urljoin(self.base + "/", location)).path if location else ""


# --- the steps ---------------------------------------------------------------------------------------------------

def step_redirect_and_headers(c):
    """a. /console redirects to the login page, which has a strict CSP and cannot be framed."""
    c.driver.get(c.url("/console"))
    c.wait_for_path("/console/login")
    c.check_page("/console/login")
    status, headers, _ = c.raw("GET", "/console")
    check(300 <= status < 400 and c.redirect_path(headers) == "/console/login",
          f"a raw GET /console without a cookie answered {status} Location {headers.get('Location')!r}, "
          "expected a redirect to /console/login")
    status, headers, _ = c.raw("GET", "/console/login")
    check(status == 200, f"a raw GET /console/login answered {status}")
    csp = headers.get("Content-Security-Policy", "")
    check(csp, "/console/login has no Content-Security-Policy header")
    check("default-src 'none'" in csp, f"the CSP does not contain default-src 'none': {csp}")
    check("'unsafe-inline'" not in csp, f"the CSP allows 'unsafe-inline': {csp}")
    check(headers.get("X-Frame-Options") or "frame-ancestors 'none'" in csp,
          f"/console/login may be framed: no X-Frame-Options and no frame-ancestors 'none' in the CSP: {csp}")
    c.screenshot("login.png")


def step_login_labels(c):
    """k1. The login form's token field has a label."""
    c.find("input#token")
    check(c.driver.find_elements(By.CSS_SELECTOR, 'label[for="token"]'), '/console/login: no <label for="token">')


def step_wrong_token(c):
    """b. A wrong token is refused with a message, on the login page."""
    field = c.find("input#token")
    check(field.get_attribute("name") == "token", "input#token is not named token")
    field.clear()
    field.send_keys("not-a-token-" + secrets.token_hex(8))
    c.submit("button#login")
    error = c.find("#error", "#error message after a wrong token")
    text = error.text.lower()
    check("token" in text and "valid" in text, f"#error does not say the token is not valid: {error.text!r}")
    check(c.path() == "/console/login", f"after a wrong token the browser is on {c.path()}, not /console/login")
    check(c.driver.get_cookie(COOKIE) is None, f"a wrong token set the {COOKIE} cookie")


def step_login(c):
    """c. The admin token logs in to the overview, with a strict session cookie."""
    field = c.find("input#token")
    field.clear()
    field.send_keys(c.token)
    c.submit("button#login")
    c.wait_for_path("/console")
    c.check_page("/console", "Overview")
    cookie = c.driver.get_cookie(COOKIE)
    check(cookie, f"no {COOKIE} cookie after logging in")
    check(cookie.get("httpOnly") is True, f"the {COOKIE} cookie is not HttpOnly: {cookie}")
    check(cookie.get("secure") is True, f"the {COOKIE} cookie is not Secure: {cookie}")
    check(cookie.get("sameSite") == "Strict", f"the {COOKIE} cookie is not SameSite=Strict: {cookie}")
    check(cookie.get("path") == "/console", f"the {COOKIE} cookie's path is {cookie.get('path')!r}, not /console")
    check("expiry" in cookie, f"the {COOKIE} cookie has no expiry (a session-only cookie): {cookie}")
    check(cookie["expiry"] > time.time(), f"the {COOKIE} cookie has already expired: {cookie}")
    c.cookie_value = cookie["value"]
    print(f"   (the session cookie expires in {(cookie['expiry'] - time.time()) / 3600:.1f} h)")


def step_csrf(c):
    """d. POSTs without or with a wrong CSRF token are refused, though the session cookie is good."""
    cookie = f"{COOKIE}={c.cookie_value}"
    status, _, _ = c.raw("GET", "/console", {"Cookie": cookie})
    check(status == 200, f"a raw GET /console with the session cookie answered {status}, expected 200")
    form = {"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded", "Origin": c.base}
    status, _, body = c.raw("POST", "/console/twomes/accounts", form, b"")
    check(status == 403, f"POST /console/twomes/accounts without a csrf field answered {status}, expected 403: "
          f"{body[:300]!r}")
    status, _, body = c.raw("POST", "/console/twomes/accounts", form, b"csrf=" + secrets.token_hex(16).encode())
    check(status == 403, f"POST /console/twomes/accounts with a wrong csrf field answered {status}, expected 403: "
          f"{body[:300]!r}")


def step_accounts(c):
    """e. Create a Twomes account: pseudonym, activation link and QR code; it is listed."""
    c.follow("nav-accounts", "/console/twomes/accounts")
    c.screenshot("accounts.png")
    c.submit("button#create-account")
    c.check_page("the account-created page")
    pseudonym = c.find("#account-pseudonym").text.strip()
    check(re.fullmatch(r"\d+", pseudonym), f"#account-pseudonym holds {pseudonym!r}, not a number")
    c.pseudonym = pseudonym
    href = c.find("a#activation-link").get_attribute("href") or ""
    check(re.match(r"https?://", href) and "/l/" in href, f"a#activation-link's href is {href!r}, "
          "expected an http(s) short link containing /l/")
    qr = c.find("img#activation-qr")
    src = qr.get_attribute("src") or ""
    check(src.startswith("data:image/png;base64,"), f"img#activation-qr's src starts {src[:40]!r}, "
          "expected data:image/png;base64,")
    c.wait(lambda d: d.execute_script("return arguments[0].complete", qr), "img#activation-qr did not load")
    check(qr.is_displayed(), "img#activation-qr is not displayed")
    width = c.driver.execute_script("return arguments[0].naturalWidth", qr)
    check(width and width > 0, f"img#activation-qr has naturalWidth {width}: the image did not decode (or the CSP "
          "blocks data: images)")
    c.screenshot("account-created.png")
    c.follow("nav-accounts", "/console/twomes/accounts")
    table = c.find("table#accounts")
    cells = [cell.text.strip() for cell in table.find_elements(By.CSS_SELECTOR, "td, th")]
    check(pseudonym in cells, f"table#accounts has no cell reading {pseudonym}")
    print(f"   (account {pseudonym}, activation link {href})")


def step_devices(c):
    """f. Register a device; it is listed with its label not printed."""
    c.follow("nav-devices", "/console/twomes/devices")
    name = c.find("input#device-name")
    check(name.get_attribute("name") == "name", "input#device-name is not named name")
    name.clear()
    name.send_keys(c.device)
    device_type = c.find("select#device-type")
    check(device_type.get_attribute("name") == "device_type", "select#device-type is not named device_type")
    values = [o.get_attribute("value") for o in device_type.find_elements(By.TAG_NAME, "option")]
    check("DSMR-P1-gateway-TinTsTr" in values, f"select#device-type has no DSMR-P1-gateway-TinTsTr option: {values}")
    Select(device_type).select_by_value("DSMR-P1-gateway-TinTsTr")
    secret = c.find(ACTIVATION_SECRET[0])
    check(secret.get_attribute("name") == ACTIVATION_SECRET[1],
          f"{ACTIVATION_SECRET[0]} is not named {ACTIVATION_SECRET[1]}")
    secret.clear()
    secret.send_keys(c.secret)
    c.submit("button#register-device")
    c.check_page("the page after registering a device")
    notice = c.find("#notice", "#notice after registering a device")
    check(c.device in notice.text, f"#notice does not name {c.device}: {notice.text!r}")
    if c.path() != "/console/twomes/devices":
        c.driver.get(c.url("/console/twomes/devices"))
        c.check_page("/console/twomes/devices")
    row = c.find(f'table#devices tr[data-device="{c.device}"]', f"row for {c.device} in table#devices")
    printed = row.find_elements(By.CSS_SELECTOR, ".label-printed")
    check(printed, f"the row of {c.device} has no .label-printed cell")
    check(printed[0].text.strip().lower() == "no", f"{c.device}'s .label-printed reads {printed[0].text!r}, not no")
    c.screenshot("devices.png")
    print(f"   (device {c.device}, activation secret {c.secret})")


def step_devices_labels(c):
    """k2. Every field of the devices page has a label."""
    fields = c.driver.find_elements(
        By.CSS_SELECTOR,
        "input:not([type=hidden]):not([type=checkbox]):not([type=submit]):not([type=button]):not([type=reset])"
        ":not([type=image]), select")
    check(fields, "/console/twomes/devices has no input or select")
    for field in fields:
        field_id = field.get_attribute("id")
        what = f"<{field.tag_name} name={field.get_attribute('name')!r}>"
        check(field_id, f"/console/twomes/devices: {what} has no id, so no label[for] can name it")
        check(c.driver.find_elements(By.CSS_SELECTOR, f'label[for="{field_id}"]'),
              f'/console/twomes/devices: no <label for="{field_id}"> for {what}')


def step_labels(c):
    """g. Print the new device's label: a sheet with its name and QR code; the device is marked printed."""
    row = c.find(f'table#devices tr[data-device="{c.device}"]')
    boxes = row.find_elements(By.CSS_SELECTOR, f'input[name=name][value="{c.device}"]')
    check(boxes, f'the row of {c.device} has no input[name=name][value="{c.device}"]')
    check(boxes[0].get_attribute("type") == "checkbox", "the row's input[name=name] is not a checkbox")
    if not boxes[0].is_selected():
        boxes[0].click()
    check(boxes[0].is_selected(), f"the checkbox of {c.device} did not tick")
    c.submit("button#print-selected")
    c.check_page("the label sheet")
    check(c.path() == "/console/twomes/labels", f"the label sheet is at {c.path()}, not /console/twomes/labels")
    check(c.device in c.driver.page_source, f"the label sheet does not show {c.device}")
    # The links service draws each label's QR code as inline SVG (crisp at any print size): one per label, with modules.
    codes = c.driver.find_elements(By.CSS_SELECTOR, ".label svg")
    check(codes, "the label sheet has no QR code (.label svg)")
    check(all(code.find_elements(By.CSS_SELECTOR, "path, rect") for code in codes), "a QR code on the label sheet is empty")
    c.screenshot("labels.png")
    c.driver.get(c.url("/console/twomes/devices"))
    c.wait_for_path("/console/twomes/devices")
    c.check_page("/console/twomes/devices")
    row = c.find(f'table#devices tr[data-device="{c.device}"]', f"row for {c.device} in table#devices")
    printed = row.find_elements(By.CSS_SELECTOR, ".label-printed")
    check(printed and printed[0].text.strip().lower() == "yes",
          f"after printing, {c.device}'s .label-printed reads {printed[0].text if printed else None!r}, not yes")


def step_export(c):
    """h. Export measurements as CSV: the browser downloads measurements.csv with a header line."""
    c.follow("nav-export", "/console/twomes/export")
    fmt = c.find("select#export-format")
    form = fmt.find_element(By.XPATH, "ancestor::form")
    check((form.get_attribute("method") or "get").lower() == "get", "the export form is not a GET form")
    values = [o.get_attribute("value") for o in fmt.find_elements(By.TAG_NAME, "option")]
    check("csv" in values and "ndjson" in values, f"select#export-format offers {values}, expected csv and ndjson")
    for field in ("export-pseudonym", "export-device", "export-property", "export-from", "export-to"):
        c.find(f"input#{field}")
    Select(fmt).select_by_value("csv")
    pseudonym = c.find("input#export-pseudonym")
    pseudonym.clear()
    pseudonym.send_keys(c.pseudonym)
    c.screenshot("export.png")
    target = os.path.join(c.downloads, "measurements.csv")
    check(not os.path.exists(target), f"{target} exists before the download")
    c.find("button#download").click()
    deadline = time.time() + WAIT
    while time.time() < deadline:
        if os.path.exists(target) and not os.path.exists(target + ".crdownload"):
            break
        time.sleep(0.25)
    check(os.path.exists(target), f"no measurements.csv in the download directory within {WAIT} s "
          f"(it holds {os.listdir(c.downloads)})")
    with open(target, encoding="utf-8-sig") as f:
        first = f.readline().strip()
    check("timestamp" in first.split(",") or "timestamp" in first,
          f"measurements.csv's first line is {first!r}, not a CSV header naming timestamp")
    print(f"   (header: {first})")


PAGES = [
    ("/console", "Overview", "overview.png"),
    ("/console/opensense", "OpenSense", "opensense.png"),
    ("/console/vault", "Data vault", "vault.png"),
    ("/console/consumers", "API consumers", "consumers.png"),
    ("/console/links", "Short links", "links.png"),
    ("/console/lemon", "LEMON", "lemon.png"),
    ("/console/erasure", "Erasure", "erasure.png"),
]


def step_pages(c):
    """i. Every other page renders with its heading."""
    for path, h1, shot in PAGES:
        c.driver.get(c.url(path))
        c.wait(lambda d: d.execute_script("return document.readyState") == "complete", f"{path} did not load")
        check(c.path() == path, f"GET {path} ended on {c.path()}")
        c.check_page(path, h1)
        if path == "/console":
            table = c.find("table#health")
            text = table.text
            missing = [s for s in SERVICES if not re.search(rf"\b{s}\b", text)]
            check(not missing, f"table#health has no row for {missing}: {text!r}")
        if path == "/console/lemon":
            check(c.driver.find_elements(By.CSS_SELECTOR, 'svg[role="img"]'),
                  '/console/lemon has no inline <svg role="img">')
        c.screenshot(shot)


def step_logout(c):
    """j. Logging out ends the session in the browser and on the server."""
    c.driver.get(c.url("/console"))
    c.wait_for_path("/console")
    c.find(f"{LOGOUT_FORM} button#logout", f"{LOGOUT_FORM} with button#logout in the page")
    c.submit(f"{LOGOUT_FORM} button#logout")
    c.wait_for_path("/console/login")
    check(c.driver.get_cookie(COOKIE) is None, f"the {COOKIE} cookie is still in the browser after logging out")
    status, headers, _ = c.raw("GET", "/console", {"Cookie": f"{COOKIE}={c.cookie_value}"})
    check(not 200 <= status < 300, f"a raw GET /console with the logged-out cookie answered {status}: the session "
          "was not revoked on the server")
    if 300 <= status < 400:
        check(c.redirect_path(headers) == "/console/login",
              f"a raw GET /console with the logged-out cookie redirects to {headers.get('Location')!r}")
    print(f"   (the old cookie now gets {status} {headers.get('Location', '')})")


def step_identity(c):
    """l1. The header names the identity behind the session: the token's label and its scope."""
    c.driver.get(c.url("/console"))
    c.wait_for_path("/console")
    identity = c.find("header #identity", "the session's identity in the header").text
    check("custodian up" in identity and "owner" in identity,
          f"header #identity reads {identity!r}, expected the label 'custodian up' and the scope 'owner'")
    for link in ("nav-audit", "nav-tokens"):
        c.find(f"a#{link}", f"an owner's navigation link a#{link}")


def step_tokens(c):
    """m. Owners list, create and revoke admin identities; a new token is shown once."""
    c.follow("nav-tokens", "/console/tokens")
    c.check_page("/console/tokens", "Admin tokens")
    for label in ("browser researcher", "browser leaver"):
        c.find("input#token-label").send_keys(label)
        Select(c.find("select#token-scope")).select_by_visible_text("researcher")
        if label == "browser leaver":
            c.find("input#token-expires").send_keys("30")
        c.submit("button#create-token")
        c.check_page("the token-created page")
        token = c.find("#new-token").text.strip()
        check(re.fullmatch(r"[A-Za-z0-9_-]{43}", token), f"#new-token holds {token!r}, not a 43-character token")
        if label == "browser researcher":
            c.researcher_token = token
    rows = c.driver.find_elements(By.CSS_SELECTOR, "table#identities tbody tr")
    leaver = [row for row in rows if "browser leaver" in row.text]
    check(leaver and "researcher" in leaver[0].text, f"table#identities has no researcher row 'browser leaver': "
          f"{[row.text for row in rows]}")
    c.screenshot("tokens.png")
    button = leaver[0].find_element(By.CSS_SELECTOR, "button.revoke")
    old = c.driver.find_element(By.TAG_NAME, "html")
    button.click()
    c.wait(expected_conditions.staleness_of(old), "revoking did not load a new page")
    c.check_page("the page after revoking")
    notice = c.find("#notice").text
    check("browser leaver" in notice and "revoked" in notice, f"#notice reads {notice!r} after revoking")
    row = [r for r in c.driver.find_elements(By.CSS_SELECTOR, "table#identities tbody tr") if "browser leaver" in r.text][0]
    check(not row.find_elements(By.CSS_SELECTOR, "button.revoke"), "the revoked identity can still be revoked")


def step_audit(c):
    """n. The audit log page: a participant's history from their pseudonym, filters, the session's identity, CSV."""
    c.follow("nav-accounts", "/console/twomes/accounts")
    row = c.find(f'tr[data-pseudonym="{c.pseudonym}"]', f"the row of account {c.pseudonym}")
    link = row.find_element(By.CSS_SELECTOR, "a.history")
    old = c.driver.find_element(By.TAG_NAME, "html")
    link.click()
    c.wait(expected_conditions.staleness_of(old), "the pseudonym's history link did not load a new page")
    c.wait_for_path("/console/audit")
    c.check_page("/console/audit", "Audit log")
    check(c.find("input#audit-target").get_attribute("value") == c.pseudonym, "the target filter is not the pseudonym")
    rows = [r.text for r in c.driver.find_elements(By.CSS_SELECTOR, "table#audit-entries tbody tr")]
    made = [r for r in rows if "POST /account" in r]
    check(made and "custodian up" in made[0] and "200" in made[0],
          f"the history of {c.pseudonym} has no 'POST /account' entry by 'custodian up' with status 200: {rows}")
    c.screenshot("audit.png")
    # The filters: the identity and the action, as typed into the form.
    c.follow("nav-audit", "/console/audit")
    c.find("input#audit-identity").send_keys("custodian up")
    c.find("input#audit-action").send_keys("POST /admin/v1/tokens")
    c.submit("button#audit-filter")
    c.check_page("the filtered audit log")
    rows = [r.text for r in c.driver.find_elements(By.CSS_SELECTOR, "table#audit-entries tbody tr")]
    check(len(rows) >= 4 and all("POST /admin/v1/tokens" in r for r in rows),
          f"filtering by identity and action shows {rows}, expected the two token creations' begin and end")
    href = c.find("a#audit-csv").get_attribute("href")
    status, headers, body = c.raw("GET", urllib.parse.urlsplit(href).path + "?" + urllib.parse.urlsplit(href).query,
                                  {"Cookie": f"{COOKIE}={c.cookie_value}"})
    check(status == 200 and headers.get("Content-Type", "").startswith("text/csv"),
          f"the audit CSV answered {status} {headers.get('Content-Type')}")
    text = body.decode()
    check(text.startswith("seq,at,phase,identity,") and "POST /admin/v1/tokens" in text and c.researcher_token not in text,
          f"the audit CSV is not the filtered log without tokens: {text[:300]!r}")


def step_researcher(c):
    """o. A researcher's session: its identity in the header, no owners' pages, refused at the audit log."""
    c.driver.get(c.url("/console/login"))
    c.wait_for_path("/console/login")
    field = c.find("input#token")
    field.clear()
    field.send_keys(c.researcher_token)
    c.submit("button#login")
    c.wait_for_path("/console")
    identity = c.find("header #identity").text
    check("browser researcher" in identity and "researcher" in identity, f"header #identity reads {identity!r}")
    check(not c.driver.find_elements(By.CSS_SELECTOR, "a#nav-audit, a#nav-tokens"), "a researcher's navigation shows owners' pages")
    c.driver.get(c.url("/console/audit"))
    c.wait(lambda d: d.execute_script("return document.readyState") == "complete", "/console/audit did not load")
    check(c.status() in (0, 403), f"a researcher's /console/audit answered {c.status()}, expected 403")
    heading = c.find("h1").text.strip()
    check(heading == "Not allowed", f"a researcher's /console/audit has the heading {heading!r}, expected 'Not allowed'")
    check("owner" in c.find("main").text, "the refusal does not say which scope is needed")


import list_steps  # noqa: E402 - it imports check from here

STEPS = [
    ("a. /console redirects to /console/login; CSP and framing headers", step_redirect_and_headers),
    ("k1. login form field has a label", step_login_labels),
    ("b. a wrong token is refused", step_wrong_token),
    ("c. login with the admin token; HttpOnly Secure SameSite=Strict cookie", step_login),
    ("d. CSRF: POSTs without or with a wrong csrf field get 403", step_csrf),
    ("e. Twomes account created with activation link and QR code", step_accounts),
    ("f. device registered, label not printed", step_devices),
    ("k2. devices page fields have labels", step_devices_labels),
    ("g. label sheet printed, device marked printed", step_labels),
    ("h. CSV export downloads measurements.csv", step_export),
    ("i. overview, OpenSense, vault, consumers, links, LEMON pages render", step_pages),
    *list_steps.STEPS,
    ("l1. the header names the session's identity and scope", step_identity),
    ("m. admin tokens: created (shown once) and revoked", step_tokens),
    ("n. audit log: a pseudonym's history, filters, CSV", step_audit),
    ("p. a cohort of 20 by count: a printable sheet of 20 letters with QR codes and links", step_cohort),
    ("q. a participant's and a device's pages: per-day charts with gaps and the 144 line, links between", step_participant_and_device),
    ("r. silent devices: those 3 hours quiet listed, the one reporting not", step_silent),
    ("s. accounts and devices searched and filtered", step_search),
    ("j. logout revokes the session", step_logout),
    ("o. a researcher's session: identity shown, owners' pages refused", step_researcher),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the platform, e.g. https://127.0.0.1:18531")
    parser.add_argument("--token-file", required=True, help="a file holding an admin token")
    parser.add_argument("--screenshots", help="save a PNG of each page in this directory")
    c = Context(parser.parse_args())
    step = "starting Chromium"
    try:
        c.start_browser()
        for step, function in STEPS:
            function(c)
            print(f"ok {step}", flush=True)
    except Exception as error:  # noqa: BLE001 - every failure is reported the same way
        print(f"FAIL {step}", flush=True)
        if isinstance(error, Failure):
            print(f"   {error}")
        else:
            traceback.print_exc(file=sys.stdout)
        if c.driver:
            try:
                print(f"   URL: {c.driver.current_url}")
                print("   page source (first 2000 characters):")
                print(c.driver.page_source[:2000])
            except WebDriverException:
                pass
        sys.stdout.flush()
        c.close()
        sys.exit(1)
    c.close()
    print(f"PASS: {len(STEPS)} steps")


if __name__ == "__main__":
    main()
