"""The semantic search page (web/search.html) end to end in headless Chromium: the MiniLM weights come
from the page's origin with a progress bar (bytes, then tensors to the GPU), the corpus is embedded on
the GPU (an 8-sentence subset on the software adapter, as the page says), and a fixed query finds the
sentence it paraphrases first; nothing is requested beyond the origin, and no page errors."""
from urllib.parse import urlsplit

import pytest


@pytest.fixture(scope="module")
def search_page(browser, server_url):
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    page.errors, page.foreign, page.status = [], [], []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    origin = urlsplit(server_url).netloc
    page.on("request", lambda r: page.foreign.append(r.url)
            if not r.url.startswith(("data:", "blob:")) and urlsplit(r.url).netloc != origin else None)
    page.set_default_timeout(900_000)
    page.goto(f"{server_url}/web/search.html")
    page.wait_for_selector("body[data-state=ready], body[data-state=error], body[data-state=nogpu]")
    assert page.evaluate("document.body.dataset.state") == "ready", page.inner_text("#console")
    page.wait_for_function("searchDemo.results.length > 0")
    yield page
    context.close()


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
    assert not search_page.foreign, search_page.foreign
    assert not search_page.errors, search_page.errors
