"""The asyncio client: the same calls as KevalClient, awaitable. Each HTTP exchange runs in a
thread of the client's own pool (the standard library has no asyncio HTTP client; the pool, not
asyncio's default one of a few threads, so that many jobs are long-polled at once):
`await client.evaluate_batch(...)` returns when the slowest job ends."""
import asyncio
import concurrent.futures
import functools

from .client import KevalClient
from .results import Result


class AsyncKevalClient:
    def __init__(self, url: str, token: str | None = None, concurrency: int = 64, **options):
        self.sync = KevalClient(url, token, **options)
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=concurrency,
                                                          thread_name_prefix="keval-client")

    async def _run(self, call, *args):
        return await asyncio.get_running_loop().run_in_executor(self.pool, functools.partial(call, *args))

    async def health(self) -> dict:
        return await self._run(self.sync.health)

    async def submit(self, item) -> str:
        return await self._run(self.sync.submit, item)

    async def submit_batch(self, items) -> list:
        return await self._run(self.sync.submit_batch, list(items))

    async def poll(self, job_id: str, wait_s: float = 0.0) -> Result:
        return await self._run(self.sync.poll, job_id, wait_s)

    async def wait(self, job_ids, timeout_s: float | None = None) -> list:
        """Each job long-polled on its own; JobTimeout (from the first late one) past `timeout_s`."""
        done = await asyncio.gather(*(self._run(self.sync.wait, [j], timeout_s) for j in job_ids))
        return [results[0] for results in done]

    async def evaluate(self, item, timeout_s: float | None = None) -> Result:
        return (await self.wait([await self.submit(item)], timeout_s))[0]

    async def evaluate_batch(self, items, timeout_s: float | None = None) -> list:
        return await self.wait(await self.submit_batch(items), timeout_s)

    def close(self):
        self.pool.shutdown(wait=False, cancel_futures=True)

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        self.close()
