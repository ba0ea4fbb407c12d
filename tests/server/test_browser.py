"""The UI in headless Chromium: the leaderboard loads and sorts, a drill-down opens, and live
progress moves during a small CPU campaign without a reload. Skips, visibly, without chromium,
chromedriver or selenium (.ci/run installs them through scripts/install-deps.sh)."""
import shutil
import sqlite3
import subprocess
import time

import pytest

from conftest import Server, env, eval_args, make_solutions

selenium = pytest.importorskip("selenium", reason="python3-selenium is not installed")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium")
DRIVER = shutil.which("chromedriver")


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM or not DRIVER:
        pytest.skip("chromium or chromedriver is not installed (Debian packages chromium, chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def column_values(table, column):
    return [row.find_elements(By.TAG_NAME, "td")[column].get_attribute("data-sort")
            for row in table.find_elements(By.CSS_SELECTOR, "tbody tr")]


def test_leaderboard_sorts_and_drills_down(browser, server):
    browser.get(server.url + "/")
    table = browser.find_element(By.CSS_SELECTOR, "table.leaderboard")
    assert column_values(table, 1)[0] == "correct · handwritten"  # model · harness
    header = table.find_element(By.XPATH, ".//th[normalize-space()='pass@1']")
    header.click()  # ascending: the failing models first
    assert header.get_attribute("aria-sort") == "ascending"
    assert column_values(table, 1)[-1].startswith("correct")
    header.click()
    assert header.get_attribute("aria-sort") == "descending" and column_values(table, 1)[0].startswith("correct")
    spend = table.find_element(By.XPATH, ".//th[normalize-space()='agent time / solved']")
    spend.click()
    spend.click()  # descending: the one row whose meta.json has a wall time first
    assert spend.get_attribute("aria-sort") == "descending" and column_values(table, 1)[0].startswith("correct")
    table.find_element(By.LINK_TEXT, "wrong_values").click()
    WebDriverWait(browser, 20).until(lambda d: "Model wrong_values" in d.title)
    browser.find_element(By.LINK_TEXT, "scale_add").click()
    WebDriverWait(browser, 20).until(lambda d: "Problem scale_add" in d.title)
    cards = browser.find_elements(By.CSS_SELECTOR, "article.card")
    assert {c.get_attribute("data-model") for c in cards} == {"correct", "wrong_values", "compile_error"}
    assert browser.find_elements(By.CSS_SELECTOR, "figure.plot svg")


def campaign_id(db, name):
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            found = conn.execute("SELECT id FROM campaign WHERE name = ?", (name,)).fetchone()
        return found[0] if found else None
    except sqlite3.Error:
        return None  # the database is being created


def test_live_progress_moves_without_reload(browser, tmp_path):
    solutions = make_solutions(tmp_path / "solutions", ["correct", "wrong_values", "copy0", "copy1", "copy2", "copy3"])
    db = tmp_path / "live.db"
    # The server needs the database to exist: a first, one-solution campaign creates it.
    subprocess.run(eval_args(db, make_solutions(tmp_path / "first", ["correct"]), "first"), check=True,
                   capture_output=True, env=env(), timeout=900)
    server = Server(db)
    campaign = subprocess.Popen(eval_args(db, solutions, "live"), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=env())
    try:
        deadline = time.time() + 120
        while campaign_id(db, "live") is None and time.time() < deadline:
            time.sleep(0.1)
        cid = campaign_id(db, "live")
        assert cid, "the campaign did not start"
        browser.get(f"{server.url}/campaign/{cid}")
        browser.execute_script("window.__not_reloaded = true;")
        first = int(browser.find_element(By.ID, "progress-done").text)
        assert first < 6, "the campaign finished before the page could watch it"
        WebDriverWait(browser, 600, poll_frequency=0.2).until(
            lambda d: int(d.find_element(By.ID, "progress-done").text) > first)
        WebDriverWait(browser, 600, poll_frequency=0.5).until(
            lambda d: d.find_element(By.ID, "progress-status").text == "finished")
        assert browser.find_element(By.ID, "progress-done").text == "6"
        assert browser.execute_script("return window.__not_reloaded === true;"), "the page reloaded"
        assert browser.find_elements(By.CSS_SELECTOR, "#progress-latest li")
    finally:
        campaign.kill()
        campaign.wait()
        server.stop()
