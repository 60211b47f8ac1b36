"""browser_test.py's steps for the searched and paged lists: OpenSense devices (and a device's page), short links, and
the imported COVID figures on the LEMON page. Each step takes browser_test's Context."""

import datetime
import hashlib
import os
import secrets
import urllib.parse

from selenium.webdriver.common.by import By

# browser_test.py runs as the program and imports these steps once its own helpers are defined.
from __main__ import check

DEMO_CSV = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "demo", "covid-sample.csv")


def app_post(c, path, fields):
    """A form POST as the OpenSense app sends it (docs/opensense.md)."""
    body = urllib.parse.urlencode(fields).encode()
    status, _, reply = c.raw("POST", path, {"Content-Type": "application/x-www-form-urlencoded"}, body)
    check(status == 200, f"POST {path} answered {status}: {reply[:200]!r}")


def search(c, field, button, text):
    box = c.find(field)
    box.clear()
    box.send_keys(text)
    c.submit(button)


def column(c, table, index):
    return [row.find_elements(By.TAG_NAME, "td")[index].text.strip()
            for row in c.find(table).find_elements(By.CSS_SELECTOR, "tbody tr")]


def step_opensense_devices(c):
    """p1. OpenSense devices registered as the app does, searched, paged; a device's batches per day."""
    prefix = "browser-" + secrets.token_hex(3)
    ids = [f"{prefix}-{n}" for n in range(3)]
    for device in ids:
        app_post(c, "/register", {"device_id": device})
    now = datetime.datetime.now(datetime.timezone.utc)
    data = "[" + ",".join('{"probe":"dk.dtu.imm.sensible.battery","datetime":"%s","level":0.5}' % (now - datetime.timedelta(minutes=m)).strftime("%Y-%m-%d %H:%M")
                          for m in (1, 2)) + "]"
    app_post(c, "/upload", {"device_id": ids[0], "file_hash": hashlib.md5(data.encode()).hexdigest(), "data": data})

    c.follow("nav-opensense", "/console/opensense")
    search(c, "input#opensense-q", "button#opensense-search", prefix)
    c.check_page("the searched OpenSense devices", "OpenSense")
    listed = column(c, "table#opensense-devices", 0)
    check(listed == ids, f"searching {prefix!r} lists {listed}, expected {ids}")
    check(c.find("input#opensense-q").get_attribute("value") == prefix, "the search does not stay in its field")

    c.driver.get(c.url(f"/console/opensense?q={prefix}&limit=2"))
    check(column(c, "table#opensense-devices", 0) == ids[:2], "a page of two does not hold the first two devices")
    c.submit("a#opensense-next")
    check(column(c, "table#opensense-devices", 0) == ids[2:], "the next page does not hold the third device")
    check(c.find("input#opensense-q").get_attribute("value") == prefix, "the search is lost on the next page")

    c.driver.get(c.url(f"/console/opensense?q={prefix}"))
    c.find("table#opensense-devices").find_element(By.LINK_TEXT, ids[0]).click()
    c.wait_for_path(f"/console/opensense/devices/{ids[0]}")
    c.check_page("an OpenSense device's page", f"OpenSense device {ids[0]}")
    rows = c.find("table#batches-per-day").find_elements(By.CSS_SELECTOR, "tbody tr")
    check(len(rows) == 30, f"table#batches-per-day has {len(rows)} rows, expected one for each of 30 days")
    today = now.strftime("%Y-%m-%d")
    last = [cell.text.strip() for cell in rows[-1].find_elements(By.TAG_NAME, "td")]
    check(last == [today, "2"], f"the last row reads {last}, expected {[today, '2']} (today's two batches)")
    gaps = c.driver.find_elements(By.CSS_SELECTOR, "table#batches-per-day tr.gap")
    check(len(gaps) == 29 and "(gap)" in gaps[0].text, f"{len(gaps)} days are marked as gaps, expected 29")
    desc = c.find("svg#batches-chart desc").get_attribute("textContent")
    check("2 batches" in desc and "29 days without" in desc, f"the batches chart describes itself as {desc!r}")
    c.screenshot("opensense-device.png")

    c.driver.get(c.url("/console/opensense?q=" + prefix + "&after=nowhere"))
    check(c.status() == 400, f"a bad cursor answered HTTP {c.status()}, expected 400")
    check("after must be a next_after value" in c.find("#error").text, "a bad cursor's page does not say why")
    print(f"   (devices {', '.join(ids)})")


def step_links_search(c):
    """p2. short links searched by title and by the start of their code, the search kept."""
    title = "Browser " + secrets.token_hex(3)
    c.follow("nav-links", "/console/links")
    for n in range(2):
        c.find("input#link-app-url").send_keys(f"warmtewachter://account/{n}")
        c.find("input#link-title").send_keys(f"{title} {n}")
        c.submit("button#create-link")
        c.check_page("the short link created")
    code = (c.find("a#short-link").get_attribute("href") or "").rsplit("/", 1)[-1]
    search(c, "input#links-q", "button#links-search", title.lower())
    titles = column(c, "table#short-links", 1)
    check(titles == [f"{title} 1", f"{title} 0"], f"searching {title.lower()!r} lists {titles}")
    check(c.find("input#links-q").get_attribute("value") == title.lower(), "the search does not stay in its field")
    search(c, "input#links-q", "button#links-search", code[:4])
    check(f"{title} 1" in column(c, "table#short-links", 1), f"searching the code's start {code[:4]!r} misses its link")
    check(f"{title} 0" not in column(c, "table#short-links", 1) or code[:4] == "", "a code search lists other links")


def step_covid_figures(c):
    """p3. the demo COVID figures imported, filtered by country and paged; a bad day refused."""
    c.follow("nav-lemon", "/console/lemon")
    c.find("input#covid-file").send_keys(os.path.abspath(DEMO_CSV))
    c.find("input#covid-source").send_keys("Browser test")
    c.submit("button#import-covid")
    c.wait(lambda d: "Imported " in d.find_element(By.TAG_NAME, "main").text, "the import did not finish")

    c.follow("nav-lemon", "/console/lemon")
    c.find("input#figures-country").send_keys("za")
    c.submit("button#figures-filter")
    c.check_page("the filtered figures", "LEMON")
    countries, days = column(c, "table#covid-figures", 0), column(c, "table#covid-figures", 1)
    check(set(countries) == {"ZA"} and days == sorted(days, reverse=True) and {"2020-05-15", "2020-05-17"} <= set(days),
          f"ZA's figures are {list(zip(countries, days))}, expected the demo's days, newest first")
    check(c.find("input#figures-country").get_attribute("value") == "za", "the country does not stay in its field")
    c.driver.get(c.url("/console/lemon?country=za&limit=2"))
    check(column(c, "table#covid-figures", 1) == days[:2], "a page of two does not hold the newest two days")
    c.submit("a#figures-next")
    check(column(c, "table#covid-figures", 1)[:1] == days[2:3], "the next page does not go on from the first")
    check(c.find("input#figures-country").get_attribute("value") == "za", "the filter is lost on the next page")
    c.driver.execute_script("arguments[0].scrollIntoView()", c.find("h2#figures"))
    c.screenshot("lemon-figures.png")

    c.driver.get(c.url("/console/lemon?from=2020-13-01"))
    check(c.status() == 400, f"a bad day answered HTTP {c.status()}, expected 400")
    check("from must be a day" in c.find("#error").text, "a bad day's page does not say why")
    check(c.find("input#figures-from").get_attribute("value") == "2020-13-01", "the bad day is not kept in its field")


STEPS = [
    ("p1. OpenSense devices searched and paged; a device's batches per day", step_opensense_devices),
    ("p2. short links searched by title and by code", step_links_search),
    ("p3. COVID figures imported, filtered by country and paged", step_covid_figures),
]
