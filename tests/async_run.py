"""asyncio.run for tests, in a thread of its own: in a pytest-xdist worker that also runs the browser tests,
Playwright's sync API keeps an event loop marked running on the main thread, where asyncio.run refuses."""
import asyncio
import concurrent.futures


def run(coro):
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()
