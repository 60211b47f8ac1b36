"""The Twomes study pages' steps of browser_test.py (issue 28): a cohort's printable sheet, a participant's and a
device's pages with their per-day charts, silent devices, and the lists' search and filters. The participants and
devices are made through the platform's own APIs as the app and the devices do (docs/twomes.md)."""

import json
import re
import secrets
import ssl
import time
import urllib.error
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import Select

from checks import check

def api(c, method, path, body=None, bearer=None):
    """A JSON call to the platform's APIs (the Twomes app and device routes, the admin API) over its self-signed TLS."""
    request = urllib.request.Request(c.url(path), method=method, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    if bearer:
        request.add_header("Authorization", f"Bearer {bearer}")
    try:
        with urllib.request.urlopen(request, context=ssl._create_unverified_context(), timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, error.read()[:300]


def participant_with_device(c, name, times):
    """An account activated in the app, a device attached to it and activated, and heartbeats at `times` (Unix
    seconds) uploaded by the device as docs/twomes.md describes: the pseudonym."""
    status, account = api(c, "POST", "/account", {}, bearer=c.token)
    check(status == 200, f"POST /account answered {status}: {account}")
    status, session = api(c, "POST", "/account/activate", {"activation_token": account["activation_token"]})
    check(status == 200, f"POST /account/activate answered {status}: {session}")
    secret = "".join(secrets.choice("0123456789") for _ in range(9))
    status, body = api(c, "POST", "/device", {"name": name, "device_type": "DSMR-P1-gateway-TinTsTr", "activation_token": secret},
                       bearer=c.token)
    check(status == 200, f"POST /device answered {status}: {body}")
    status, body = api(c, "POST", "/account/device/activate", {"activation_token": secret}, bearer=session["session_token"])
    check(status == 200, f"POST /account/device/activate answered {status}: {body}")
    status, device = api(c, "POST", "/device/activate", {"activation_token": secret})
    check(status == 200, f"POST /device/activate answered {status}: {device}")
    upload = {"upload_time": int(time.time()), "property_measurements": [
        {"property_name": "heartbeat", "measurements": [{"timestamp": t, "value": "0"} for t in times]}]}
    status, body = api(c, "POST", "/device/measurements/variable-interval", upload, bearer=device["session_token"])
    check(status == 200, f"the upload answered {status}: {body}")
    return account["pseudonym"]


def step_cohort(c):
    """p. Enrol a cohort of 20 by count: a printable sheet of 20 letters, each with its QR code and link."""
    c.driver.get(c.url("/console/twomes/cohort"))
    c.check_page("/console/twomes/cohort", "Enrol a cohort")
    count = c.find("input#cohort-count")
    count.clear()
    count.send_keys("20")
    c.submit("button#enrol-cohort")
    c.check_page("the cohort's sheet", "Cohort letters")
    letters = c.driver.find_elements(By.CSS_SELECTOR, "article.letter")
    check(len(letters) == 20, f"the sheet has {len(letters)} letters, expected 20")
    for letter in letters:
        qr = letter.find_elements(By.CSS_SELECTOR, "img.letter-qr")
        check(qr and (qr[0].get_attribute("src") or "").startswith("data:image/png;base64,"), "a letter has no QR image")
        width = c.driver.execute_script("return arguments[0].naturalWidth", qr[0])
        check(width and width > 0, "a letter's QR image did not decode")
        link = letter.find_elements(By.CSS_SELECTOR, "a.letter-link")
        check(link and "/l/" in (link[0].get_attribute("href") or ""), "a letter has no activation link")
        check(re.fullmatch(r"\d{6}", letter.find_element(By.CSS_SELECTOR, ".letter-pseudonym").text.strip()), "a letter has no pseudonym")
    css = c.driver.execute_script("return [...document.styleSheets].map(s => [...s.cssRules].map(r => r.cssText).join(' ')).join(' ')")
    page_rule = re.search(r"@page\s*\{[^}]*\}", css)
    check(page_rule and re.search(r"size:\s*a4", page_rule.group(0), re.IGNORECASE), f"the sheet's stylesheet has no A4 page rule: {page_rule}")
    check(re.search(r"\.letter\s*\{[^}]*break-after:\s*(page|always)", css), "the sheet's print stylesheet breaks no page after a letter: "
          + "; ".join(m.group(0) for m in re.finditer(r"\.letter\s*\{[^}]*\}", css)))
    c.screenshot("cohort-sheet.png")


def step_participant_and_device(c):
    """q. A participant with a device reporting on several days (a gap between): their pages, chart and links."""
    now = int(time.time())
    day = 86400
    # A whole UTC day of heartbeats four days ago (144 of 144), 30 three days ago, a few in the last hour; gaps between.
    four_days_ago = (now - 4 * day) // day * day
    times = [four_days_ago + n * 600 for n in range(144)] + [(now - 3 * day) // day * day + n * 600 for n in range(30)]
    times += [now - n * 600 for n in range(6)]
    days_with = {time.strftime("%Y-%m-%d", time.gmtime(t)) for t in times}
    name = "TWOMES-" + secrets.token_hex(3).upper()
    pseudonym = participant_with_device(c, name, times)
    c.driver.get(c.url(f"/console/twomes/accounts/{pseudonym}"))
    c.check_page("the participant's page", f"Participant {pseudonym}")
    svg = c.find('svg#readings-chart[role="img"]', "the readings chart")
    gaps = svg.find_elements(By.CSS_SELECTOR, "rect.gap")
    check(len(gaps) == 30 - len(days_with), f"the chart marks {len(gaps)} gap days, expected {30 - len(days_with)} (30 days, "
          f"{len(days_with)} with readings)")
    check(c.find("details#readings-chart-figures table").get_attribute("id") == "readings-chart-table", "no table of the figures")
    c.screenshot("participant.png")
    link = c.find(f'a.device[href="/console/twomes/devices/{name}"]', "the link to the device's page")
    old = c.driver.find_element(By.TAG_NAME, "html")
    link.click()
    c.wait(expected_conditions.staleness_of(old), "the device link did not load a page")
    c.check_page("the device's page", f"Device {name}")
    chart = c.find("svg#heartbeats-chart", "the heartbeats chart")
    check(chart.find_elements(By.CSS_SELECTOR, "line.expected"), "the heartbeats chart has no line of the 144 expected")
    # The table is in a closed <details>: its text is read as the document has it, not as shown.
    rows = {r.find_element(By.TAG_NAME, "th").get_attribute("textContent").split(" ")[0]: " ".join(
        cell.get_attribute("textContent") for cell in r.find_elements(By.TAG_NAME, "td")) for r in c.driver.find_elements(By.CSS_SELECTOR, "#heartbeats-chart-table tbody tr")}
    four = time.strftime("%Y-%m-%d", time.gmtime(four_days_ago))
    check(rows.get(four) == "144 100%", f"the row of {four} reads {rows.get(four)!r}, expected 144 heartbeats, 100%")
    check(c.find("#device-account a.participant").text.strip() == str(pseudonym), "the device's page does not link its participant")
    c.screenshot("device.png")


def step_silent(c):
    """r. Devices whose last readings are 3 hours old are listed as silent; the one still reporting is not."""
    now = int(time.time())
    stem = "TWOMES-" + secrets.token_hex(2).upper()
    quiet = [f"{stem}A{n}" for n in range(2)]  # names are TWOMES- and six hex digits
    for name in quiet:
        participant_with_device(c, name, [now - 3 * 3600 - n * 600 for n in range(6)])
    talking = f"{stem}B0"
    participant_with_device(c, talking, [now - n * 600 for n in range(6)])
    c.driver.get(c.url("/console"))
    c.follow("nav-silent", "/console/twomes/silent")
    listed = {row.get_attribute("data-device") for row in c.driver.find_elements(By.CSS_SELECTOR, "table#silent-devices tr[data-device]")}
    check(set(quiet) <= listed, f"the silent list lacks {set(quiet) - listed}")
    check(talking not in listed, f"the silent list shows {talking}, which reported minutes ago")
    threshold = c.find("input#silent-for")
    threshold.clear()
    threshold.send_keys("4h")
    c.submit("button#silent-show")
    check(c.find("input#silent-for").get_attribute("value") == "4h", "the threshold did not stay in its field")
    listed = {row.get_attribute("data-device") for row in c.driver.find_elements(By.CSS_SELECTOR, "table#silent-devices tr[data-device]")}
    check(not (set(quiet) & listed), "devices silent for 3 hours are listed as silent for 4")
    c.driver.get(c.url("/console/twomes/silent"))
    c.screenshot("silent.png")
    c.stem = stem


def step_search(c):
    """s. Search and filter the accounts and the devices: the values stay in the fields."""
    c.driver.get(c.url("/console/twomes/devices"))
    field = c.find("input#devices-q")
    field.clear()
    field.send_keys(c.stem)
    Select(c.find("select#devices-state")).select_by_value("attached")
    c.submit("button#devices-search")
    names = {row.get_attribute("data-device") for row in c.driver.find_elements(By.CSS_SELECTOR, "table#devices tr[data-device]")}
    check(names == {f"{c.stem}A0", f"{c.stem}A1", f"{c.stem}B0"}, f"searching {c.stem} found {names}")
    check(c.find("input#devices-q").get_attribute("value") == c.stem, "the search did not stay in its field")
    check(Select(c.find("select#devices-state")).first_selected_option.get_attribute("value") == "attached", "the state did not stay")
    Select(c.find("select#devices-state")).select_by_value("registered")
    c.submit("button#devices-search")
    check(not c.driver.find_elements(By.CSS_SELECTOR, "table#devices tr[data-device]"), "attached devices are listed as registered")
    c.driver.get(c.url("/console/twomes/accounts"))
    field = c.find("input#accounts-q")
    field.send_keys(c.pseudonym)
    Select(c.find("select#accounts-state")).select_by_value("pending")
    c.submit("button#accounts-search")
    rows = [row.get_attribute("data-pseudonym") for row in c.driver.find_elements(By.CSS_SELECTOR, "table#accounts tr[data-pseudonym]")]
    check(rows == [c.pseudonym], f"searching {c.pseudonym}, pending, found {rows}")
    Select(c.find("select#accounts-state")).select_by_value("activated")
    c.submit("button#accounts-search")
    check(not c.driver.find_elements(By.CSS_SELECTOR, "table#accounts tr[data-pseudonym]"), "a pending account is listed as activated")
