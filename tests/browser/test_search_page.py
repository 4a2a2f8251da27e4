"""The semantic search page (web/search.html) end to end in headless Chromium: the MiniLM weights come
from the page's origin with a progress bar (bytes, then tensors to the GPU), the corpus is embedded on
the GPU (an 8-sentence subset on the software adapter, as the page says), and a fixed query finds the
sentence it paraphrases first; nothing is requested beyond the origin, and no page errors."""
import base64

import pytest

from conftest import open_app_page
from test_web_demo import PNG_STATS


@pytest.fixture(scope="module")
def search_page(browser, server_url):
    page = open_app_page(browser, server_url, "/web/search.html", 900_000, {"width": 1280, "height": 1000})
    page.wait_for_function("searchDemo.results.length > 0")
    yield page
    page.context.close()


def test_the_query_finds_its_paraphrase(search_page):
    assert search_page.is_visible("#software-note")
    result = search_page.evaluate("searchDemo.results[0]")
    assert result["query"] == "change which user owns a file"
    hits = result["hits"]
    assert hits[0]["sentence"].startswith("shutil.chown:"), hits
    assert hits[0]["score"] > 0.4 and hits[0]["score"] > hits[1]["score"] + 0.05, hits
    assert "8 sentences embedded" in search_page.inner_text("#console")
    assert len(search_page.locator("#hits li").all()) == 5


def test_a_second_query_and_the_timings(search_page):
    search_page.fill("#query", "make a new temporary file")
    search_page.click("#search")
    search_page.wait_for_function("searchDemo.results.length > 1 && !searchDemo.running")
    hits = search_page.evaluate("searchDemo.results[1].hits")
    assert hits[0]["sentence"].startswith("tempfile.NamedTemporaryFile:"), hits
    timings = search_page.inner_text("#timings")
    for what in ("download the weights", "weights to the GPU", "embed the corpus", "this query"):
        assert what in timings
    shot = base64.b64encode(search_page.locator("#hits").screenshot()).decode()
    stats = search_page.evaluate(PNG_STATS, shot)
    assert stats["ink"] > 2000 and stats["colours"] > 20, stats  # the hits are drawn, not a blank box
    search_page.screenshot(path="/tmp/webtorch-artifacts/search-page.png", full_page=True)
    assert not search_page.foreign, search_page.foreign
    assert not search_page.errors, search_page.errors
