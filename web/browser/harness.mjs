// What every browser check script here shares: one "ok - NAME" / "not ok -
// NAME: why" line per check, "N passed, N failed" last (the plain form the
// integration tests read), assertions, a bounded wait, Debian's chromium
// launched headless the same way.
const results = [];

export async function check(name, fn) {
  try {
    await fn();
    results.push([name, null]);
    console.log(`ok - ${name}`);
  } catch (e) {
    results.push([name, e]);
    console.log(`not ok - ${name}: ${e.message}`);
  }
}

export function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

// fn() every pollMs until it returns something truthy (returned), at most
// timeoutMs; its last error is named in the timeout.
export async function until(fn, what, timeoutMs = 30000, pollMs = 200) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
  throw new Error(`timed out waiting for ${what}${last instanceof Error ? ` (${last.message})` : ''}`);
}

export function launch(chromium, executablePath) {
  return chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
}

// Closes the browser, prints the summary line and exits 1 when a check failed.
export async function finish(browser) {
  await browser.close();
  const failed = results.filter(([, e]) => e).length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}
