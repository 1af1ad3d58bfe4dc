// The book (docs/book, built into the site by scripts/build-app.mjs) is served at /book/, and
// every lab's "guide to this lab" link opens that lab's chapter.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, byId, LABS } from './harness.mjs';

let server;
before(async () => { server = await serve(); });
after(() => server.close());

test('the book is served at /book/ with its three parts and the theory', async () => {
  const res = await fetch(`${server.url}book/`);
  assert.equal(res.status, 200);
  const html = await res.text();
  for (const part of ['For students', 'For instructors', 'For contributors']) {
    assert.ok(html.includes(part), `the book's start names ${part}`);
  }
  const theory = await fetch(`${server.url}book/theory.html`);
  assert.equal(theory.status, 200);
  assert.ok((await theory.text()).includes('Theory reference'), 'docs/theory.md is in the book');
});

test("every lab's guide link opens its chapter of the book", async () => {
  const { browser, page, errors } = await launch({ webgpu: false });
  try {
    for (const { id, route } of LABS) {
      await page.goto(`${server.url}${route}`);
      const link = page.locator(byId('guide-link'));
      await link.waitFor();
      const href = await link.evaluate((a) => a.href);
      assert.ok(href.endsWith(`/book/student/${id}.html`), `${id}: ${href}`);
      const res = await page.request.get(href);
      assert.equal(res.status(), 200, `${id}: ${href}`);
      // The chapter opens with the lab's route (docs/book/src/student/<id>.md).
      assert.ok((await res.text()).includes(`<code>/${route}</code>`), `${href} is ${id}'s chapter`);
    }
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
